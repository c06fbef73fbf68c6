"""Storage backends. Only this package imports backend libraries (networkx, neo4j, neomodel)."""
