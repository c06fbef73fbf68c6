// Drop one of graphmem's indexes by name: a vector index whose dimension or quantization
// is not the one asked for (install_schema with rebuild_vector_indexes=True; the vectors
// stay on the nodes and are indexed again), a full-text index whose consistency setting
// changed (rebuilt from the nodes), or a single-property `tenant` index an earlier
// graphmem made (the planner preferred it to the (tenant, id) uniqueness index).
DROP INDEX $name IF EXISTS
