// The cosine vector index of Chunk embeddings (the name neomodel would give it), with the
// dimension of the embedder and vector quantization on or off ($quantization; graphmem's
// default is off: exact cosine scores, see docs/neo4j.md). IF NOT EXISTS: an index that
// exists is left as it is; install_schema compares its configuration first.
CREATE VECTOR INDEX vector_index_Chunk_embedding IF NOT EXISTS
FOR (n:Chunk) ON n.embedding
OPTIONS {
  indexConfig: {
    `vector.dimensions`: toInteger($dimension),
    `vector.similarity_function`: 'cosine',
    `vector.quantization.enabled`: $quantization
  }
}
