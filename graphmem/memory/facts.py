"""Governed facts of :class:`graphmem.Memory` (:mod:`graphmem.policy.governance`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmem.memory.base import MemoryBase, _check_bus

if TYPE_CHECKING:
    from graphmem.core.events import EventBus
    from graphmem.policy.governance import FactMemory, GovernancePolicy, LearnResult


class FactMethods(MemoryBase):
    """Facts written through the governance rules."""

    def fact_memory(
        self,
        *,
        actor: str,
        session: str | None = None,
        policy: GovernancePolicy | None = None,
        bus: EventBus | None = None,
    ) -> FactMemory:
        """Governed facts of this tenant, written by ``actor``.

        See :mod:`graphmem.policy.governance` for the rules.

        Raises:
            IdentityRequired: ``actor`` is missing.
            InvalidInput: ``actor`` or ``session`` is not a printable name.
        """
        self._check_open()
        from graphmem.policy.governance import FactMemory

        _check_bus(bus)
        return FactMemory(
            self._store, self._tenant, actor=actor, session=session, policy=policy, bus=bus
        )

    def learn(
        self,
        subject: str,
        relation: str,
        value: str,
        *,
        actor: str,
        session: str | None = None,
        source_type: str = "manual",
        memory_type: str = "semantic",
        scope: str = "agent",
        category: str | None = None,
        policy: GovernancePolicy | None = None,
        bus: EventBus | None = None,
    ) -> LearnResult:
        """Write one fact through the governance rules; see :meth:`FactMemory.learn`.

        A ``scope="workspace"`` fact about an entity shows in the graph (identity
        snapshots, traversal, :meth:`retrieve`) once believed.
        """
        facts = self.fact_memory(actor=actor, session=session, policy=policy, bus=bus)
        return facts.learn(
            subject,
            relation,
            value,
            source_type=source_type,
            memory_type=memory_type,
            scope=scope,
            category=category,
        )

    def relate(
        self,
        source_id: str,
        type: str,
        target_id: str,
        *,
        actor: str,
        session: str | None = None,
        source_type: str = "manual",
        memory_type: str = "semantic",
        category: str | None = None,
        policy: GovernancePolicy | None = None,
        bus: EventBus | None = None,
    ) -> LearnResult:
        """Write one relationship through the governance rules; see :meth:`FactMemory.relate`.

        The governed twin of :meth:`upsert_relationships`: trust, personal data,
        poisoning, consolidation and the audit trail apply, and the edge carries the
        fact's provenance and identity once it is believed.
        """
        facts = self.fact_memory(actor=actor, session=session, policy=policy, bus=bus)
        return facts.relate(
            source_id,
            type,
            target_id,
            source_type=source_type,
            memory_type=memory_type,
            category=category,
        )
