"""``graphmem eval``: retrieval and question answering on public datasets."""
