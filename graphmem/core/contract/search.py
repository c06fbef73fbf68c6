"""Retrieval's room: :class:`SearchStore` (chunks, mentions, embeddings, search, expand, gather)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from graphmem.core.contract.data import (
    Gathered,
    ScopedHits,
    ScopedSearch,
    SearchContext,
    SearchHit,
    SearchPair,
)
from graphmem.core.models import (
    Chunk,
    Direction,
    NodeKind,
    Subgraph,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


@runtime_checkable
class SearchStore(Protocol):
    """Retrieval's indexes: chunks, MENTIONS, embeddings, vector / full-text search, expand.

    Each kind of node (``entity``, ``turn``, ``chunk``) has a vector index (one dimension
    per kind and tenant) and a full-text index; a graph scope (``scope_ids``) narrows a
    search to a set of entities and the turns and chunks that mention them.
    """

    # -- chunks and mentions
    def upsert_chunks(self, tenant: str, chunks: Sequence[Chunk]) -> list[Chunk]:
        """Insert or replace chunks by id, in one batch; return them as stored.

        A replaced chunk keeps its ``created_at``, its mentions and its embedding. The
        result has one item per input position (the last chunk with a given id wins).
        """
        ...

    def get_chunks(self, tenant: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Return the chunks that exist among ``chunk_ids``, in the order asked."""
        ...

    def delete_chunks(self, tenant: str, chunk_ids: Sequence[str]) -> int:
        """Delete chunks with their mentions and embeddings; return how many existed."""
        ...

    def count_chunks(self, tenant: str) -> int:
        """Return the number of chunks."""
        ...

    def link_mentions(
        self, tenant: str, kind: NodeKind, mentions: Mapping[str, Sequence[str]]
    ) -> int:
        """Set the entities each turn or chunk mentions: ``(node)-[:MENTIONS]->(entity)``.

        Args:
            tenant: Whose memory.
            kind: ``turn`` or ``chunk`` (``entity`` is ``InvalidInput``).
            mentions: For each node id, the entity ids it mentions. They *replace* the
                node's earlier mentions (an empty list removes them all).

        Returns:
            The number of ``MENTIONS`` edges the given nodes now have.

        Raises:
            InvalidInput: A node or an entity does not exist (the message names them);
                nothing is written.
        """
        ...

    def get_mentions(
        self, tenant: str, kind: NodeKind, node_ids: Sequence[str]
    ) -> dict[str, list[str]]:
        """The entity ids each turn or chunk mentions, sorted; nodes without any are absent."""
        ...

    def find_mentioning(
        self,
        tenant: str,
        kind: NodeKind,
        entity_ids: Sequence[str],
        *,
        limit: int | None = None,
    ) -> dict[str, list[str]]:
        """For each entity, the ids of the turns or chunks that mention it (sorted by id).

        ``limit`` caps the ids per entity. Entities mentioned nowhere (or unknown) are absent.
        """
        ...

    # -- embeddings and search indexes
    def put_embeddings(
        self, tenant: str, kind: NodeKind, ids: Sequence[str], vectors: ArrayLike
    ) -> None:
        """Store one embedding per node (replacing any earlier one) in the kind's index.

        Args:
            tenant: Whose memory.
            kind: ``entity``, ``turn`` or ``chunk``.
            ids: Node ids; each must exist. The last of a repeated id wins.
            vectors: A ``(len(ids), dimension)`` array of finite numbers. They are stored
                as float32 and compared by cosine similarity, so their length does not
                matter (a zero vector has no direction and is refused).

        Raises:
            InvalidInput: A node does not exist, the shape is wrong, a value is not finite,
                a vector is zero, or the dimension differs from the vectors already in the
                index (one dimension per kind and tenant). Nothing is written.
        """
        ...

    def embedding_dimension(self, tenant: str, kind: NodeKind) -> int | None:
        """The dimension of the kind's vector index, or None while it holds no vector."""
        ...

    def count_embeddings(self, tenant: str, kind: NodeKind) -> int:
        """How many nodes of the kind have an embedding."""
        ...

    def vector_search(
        self,
        tenant: str,
        kind: NodeKind,
        vector: ArrayLike,
        k: int,
        *,
        scope_ids: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` nodes of the kind whose embeddings are nearest to ``vector`` (cosine).

        Exact on the embedded backend; a server backend answers from its vector index in
        one query. Best first; ``score`` is the cosine similarity (-1..1).

        Args:
            tenant: Whose memory.
            kind: ``entity``, ``turn`` or ``chunk``.
            vector: The query vector, of the index's dimension.
            k: How many hits at most (positive).
            scope_ids: Entity ids of a graph scope: only these entities, or only turns
                and chunks that mention at least one of them. Unknown ids match nothing.

        Raises:
            InvalidInput: ``k`` is not positive, or the vector's dimension differs from
                the index's, or it is not finite or zero. An empty index returns ``[]``.
        """
        ...

    def fulltext_search(
        self,
        tenant: str,
        kind: NodeKind,
        query: str,
        k: int,
        *,
        scope_ids: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` nodes of the kind whose text best matches ``query`` (BM25-like), best first.

        Indexed text: a chunk's title attribute and text, a turn's content, an entity's
        name, aliases (``attributes["aliases"]``) and description. The query is plain
        words: any word may match (OR), quotes and operators of the index's query language
        are taken literally, never interpreted, so no query is a syntax error. A query with
        no searchable word returns ``[]``. ``scope_ids`` as in :meth:`vector_search`.

        Raises:
            InvalidInput: ``k`` is not positive or ``query`` is not a string.
        """
        ...

    def hybrid_search(
        self,
        tenant: str,
        kinds: Sequence[NodeKind],
        *,
        vector: ArrayLike | None,
        text: str | None,
        k: int,
        scope_ids: Sequence[str] | None = None,
    ) -> dict[NodeKind, SearchPair]:
        """Vector and full-text search of several kinds in one call, as retrieval needs them.

        The answer for each kind equals ``SearchPair(vector_search(...), fulltext_search(...))``
        with the same arguments (an empty list for a side that is None). One call lets a
        backend check the request once and do the searches together: the embedded backend
        runs them under one lock; a server backend may answer them in fewer round trips.

        Raises:
            InvalidInput: As :meth:`vector_search` and :meth:`fulltext_search`, or both
                ``vector`` and ``text`` are None, or ``kinds`` is not a list of kinds.
        """
        ...

    def expand(
        self,
        tenant: str,
        seed_ids: Sequence[str],
        *,
        depth: int = 1,
        rel_types: Sequence[str] | None = None,
        direction: Direction = "both",
        within: Sequence[str] | None = None,
        max_nodes: int | None = None,
    ) -> Subgraph:
        """The seeds and every entity within ``depth`` hops of any of them, in one walk.

        Walks current facts only, of ``rel_types`` when given, in ``direction``; with
        ``within``, only through (and to) those entity ids. Entities come nearest first,
        then by id, seeds first; ``max_nodes`` caps them (seeds always included). The
        relationships are the current facts of the allowed types among the returned
        entities, ordered by key.

        Raises:
            NotFound: A seed is not an entity of the tenant.
        """
        ...

    # -- retrieval: what one retrieve reads, in few calls
    def search_context(
        self,
        tenant: str,
        kinds: Sequence[NodeKind],
        *,
        vector: ArrayLike | None,
        text: str | None,
        k: int,
        scope_ids: Sequence[str] | None = None,
        window_depth: int | None = None,
    ) -> SearchContext:
        """:meth:`hybrid_search`, with what retrieval reads beside it, in one call.

        The turn hits' window (``window_depth``: as
        :meth:`ConversationStore.turn_window`, of the ids of both turn rankings; None: no
        window), the tenant's :meth:`EntityGraphStore.entity_version`, and which
        ``scope_ids`` are not entities (the scope of a search matches nothing for them;
        retrieval refuses such a scope). A server backend answers it in one round trip in
        the usual case. It belongs to this room because it is a search; a store that has
        it reads the other rooms' turns and entities to answer it.

        Raises:
            InvalidInput: As :meth:`hybrid_search`, or a ``window_depth`` that is not an
                integer within 0..``MAX_TURN_WINDOW``.
        """
        ...

    def search_scoped(
        self, tenant: str, searches: Sequence[ScopedSearch], *, read: bool = False
    ) -> ScopedHits:
        """Several :meth:`hybrid_search` es, each narrowed to its scope, in one call.

        Each answer equals ``hybrid_search(kinds, vector=, text=, k=, scope_ids=)`` of its
        search. With ``read``, the chunks and turns hit (by either side of any search) are
        read too, as ``get_chunks`` / ``get_turns`` would. Retrieval ranks the passages a
        bridge reached by what their source leaves unanswered, one search per source, and
        reads the winners in the same call. A server backend answers it in one round trip.

        Raises:
            InvalidInput: As :meth:`hybrid_search` for any search
                (``graphmem.core.store.check_scoped_searches``), or a search without a scope.
        """
        ...

    def gather(
        self,
        tenant: str,
        *,
        chunk_ids: Sequence[str] = (),
        turn_ids: Sequence[str] = (),
        entity_ids: Sequence[str] = (),
        mentions_of: Mapping[NodeKind, Sequence[str]] | None = None,
        seed_ids: Sequence[str] = (),
        seed_mentions: bool = False,
        depth: int = 0,
        rel_types: Sequence[str] | None = None,
        direction: Direction = "both",
        within: Sequence[str] | None = None,
        max_nodes: int | None = None,
        mentioning: Sequence[NodeKind] = (),
        mentioning_limit: int | None = None,
    ) -> Gathered:
        """Read nodes, walk the graph from seeds and reach what mentions it, in one call.

        Each part equals the protocol call it stands for with the same arguments:
        ``get_chunks(chunk_ids)``, ``get_turns(turn_ids)``, ``get_entities(entity_ids)``,
        ``get_mentions`` of each kind of ``mentions_of``; then ``expand`` from the seeds
        (``depth``, ``rel_types``, ``direction``, ``within``, ``max_nodes``) and, for each
        kind of ``mentioning``, ``find_mentioning`` of every entity the walk returned
        (``mentioning_limit`` ids each). The seeds are ``seed_ids`` and, with
        ``seed_mentions``, the entities the ``mentions_of`` nodes mention that are within
        ``within`` (when given). Unlike ``expand``, a seed that is not an entity is left
        out, not an error (a retrieval's seeds may name an entity deleted meanwhile).
        A server backend answers it in one round trip.

        Raises:
            InvalidInput: As the calls it stands for (``graphmem.core.store.check_gather``).
        """
        ...
