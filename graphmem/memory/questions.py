"""Graph questions of :class:`graphmem.Memory`: ``ask`` and the vocabulary it plans with."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmem.memory.base import MemoryBase

if TYPE_CHECKING:
    from graphmem.retrieval.graphqa import GraphAnswers, GraphQASettings
    from graphmem.retrieval.schema import GraphSchema


class QuestionMethods(MemoryBase):
    """Questions about the entity graph, answered by typed walks."""

    def ask(
        self,
        question: str,
        k: int = 10,
        *,
        max_hops: int | None = None,
        semantic: bool | None = None,
        settings: GraphQASettings | None = None,
    ) -> GraphAnswers:
        """Answer a question about the entity graph: the entities at the end of a typed walk.

        The entity the question names is linked; relation paths of up to ``max_hops``
        steps are scored by how well the question's words match the relationship types
        the store holds (their names, and descriptions set with
        :meth:`describe_relationship_type`); the best are walked. Each answer carries the
        path and one chain of facts from the named entity to it, each fact with its own
        provenance. See :mod:`graphmem.retrieval.graphqa` and docs/retrieval.md.

        >>> import graphmem
        >>> from graphmem import Entity, Relationship
        >>> with graphmem.open("memory://", tenant="doc") as mem:
        ...     _ = mem.upsert_entities([Entity(id="mira", type="npc", name="Mira"),
        ...                              Entity(id="forge", type="location", name="The Forge")])
        ...     _ = mem.upsert_relationships([
        ...         Relationship(source_id="mira", target_id="forge", type="works_at")])
        ...     [a.entity.name for a in mem.ask("where does Mira work?", semantic=False)]
        ['The Forge']

        Args:
            question: The question, in plain words, naming an entity of the graph.
            k: How many answers at most.
            max_hops: The longest path considered (default: the settings', 3).
            semantic: Compare words by embedding too (the memory's embedder), so that
                "wrote" matches ``written_by``; False: by stem only; None (default): when
                the memory has an embedder or the ``embeddings`` extra is installed.
            settings: :class:`graphmem.retrieval.GraphQASettings` (weights and limits).

        Returns:
            Up to ``k`` answers, best first, as a list that also says how sure it is
            (``confidence``, 0..1), which names were ambiguous (``ambiguity``), and, when
            it abstains (``abstained``: an empty list), why (``reason``): the question
            names no known entity, no relationship explains its words ("husband" where
            no fact is about marriage), or no fact leads anywhere.

        Raises:
            InvalidInput: Empty question, or ``k`` / ``max_hops`` not a positive integer.
            BackendUnavailable: ``semantic=True`` and no embedder can be had.
        """
        return self._retrieval().answerer(semantic, settings).answer(question, k, max_hops=max_hops)

    def describe_relationship_type(self, type: str, description: str | None) -> None:
        """Say what a relationship type means, in words a question might use.

        :meth:`ask` matches questions against a type's name and this description
        (``written_by``: "the writer or screenwriter of the film"). Kept per tenant;
        ``None`` or a blank string removes it.

        Raises:
            InvalidInput: ``type`` is not a safe name, or the description is not a string
                or is too long (2,000 characters). Nothing is written.
        """
        self._check_open()
        from graphmem.retrieval.schema import describe_type

        describe_type(self._store, self._tenant, "relationship", type, description)

    def describe_entity_type(self, type: str, description: str | None) -> None:
        """Say what an entity type is ("npc": "a character: a person or a creature").

        :meth:`ask` uses it to tell what a question asks for ("who ..." a person,
        "which rooms ..." a room). Kept per tenant; ``None`` or a blank string removes it.

        Raises:
            InvalidInput: As :meth:`describe_relationship_type`.
        """
        self._check_open()
        from graphmem.retrieval.schema import describe_type

        describe_type(self._store, self._tenant, "entity", type, description)

    def schema(self) -> GraphSchema:
        """What :meth:`ask` plans with: fact shapes, roles that go together, descriptions."""
        self._check_open()
        from graphmem.retrieval.schema import GraphSchema, read_descriptions

        return GraphSchema(
            patterns=tuple(self._store.relationship_patterns(self._tenant)),
            cooccurrence=tuple(self._store.relationship_cooccurrence(self._tenant)),
            relationship_types=read_descriptions(self._store, self._tenant, "relationship"),
            entity_types=read_descriptions(self._store, self._tenant, "entity"),
        )
