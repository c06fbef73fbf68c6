"""The conformance suite: the executable form of the GraphStore contract, for every backend."""
