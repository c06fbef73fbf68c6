// Drop one of graphmem's vector indexes by name (install_schema with
// rebuild_vector_indexes=True, when its dimension or quantization is not the one asked
// for). The vectors stay on the nodes; the index is rebuilt from them.
DROP INDEX $name IF EXISTS
