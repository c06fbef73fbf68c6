"""Tools nothing of the library imports: benchmarks, evaluations, demos."""
