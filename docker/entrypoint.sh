#!/bin/sh
# graphmem's container entrypoint. The Neo4j password comes in its own variable
# (NEO4J_PASSWORD) and is URL-encoded here, so any character is safe in the store URL.
#   serve  install the schema, then serve the HTTP API and the MCP tools (/mcp) on :8750
#   demo   install the schema, then run graphmem demo against Neo4j
#   *      any other graphmem command, as given
set -eu
if [ -z "${GRAPHMEM_STORE:-}" ]; then
  password="$(python -c 'import os, urllib.parse; print(urllib.parse.quote(os.environ.get("NEO4J_PASSWORD", ""), safe=""))')"
  GRAPHMEM_STORE="neo4j://${NEO4J_USER:-neo4j}:${password}@${NEO4J_HOST:-neo4j}:${NEO4J_PORT:-7687}"
  export GRAPHMEM_STORE
fi
case "${1:-serve}" in
  serve)
    shift || true
    graphmem schema install --store "$GRAPHMEM_STORE"
    exec graphmem serve --store "$GRAPHMEM_STORE" --keys "${GRAPHMEM_KEYS:-/run/graphmem/keys.toml}" \
      --host 0.0.0.0 --port 8750 --embedder default --mcp "$@"
    ;;
  demo)
    shift || true
    graphmem schema install --store "$GRAPHMEM_STORE"
    exec graphmem demo --store "$GRAPHMEM_STORE" --reset "$@"
    ;;
  *)
    exec graphmem "$@"
    ;;
esac
