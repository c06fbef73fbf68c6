"""What governed facts add up to: statistics, and recall under a token budget.

Scoring lives in :mod:`graphmem.policy.scoring`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from graphmem.core.checks import as_utc
from graphmem.core.models import utcnow
from graphmem.policy.audit import AUDIT_KIND, FACT_KIND
from graphmem.policy.facts import Fact, GovernanceStats, ScoredFact
from graphmem.policy.governed import GovernedFacts
from graphmem.policy.lifecycle import undone_by
from graphmem.policy.scoring import check_recall, rank_facts


class FactRecall(GovernedFacts):
    """Counts over the tenant's facts and audit log; the facts that best answer a query."""

    # ------------------------------------------------------------------ statistics

    def stats(self) -> GovernanceStats:
        """Counts by status, memory type and source, mean trust, audit size."""
        records = self._store.find_records(self._tenant, FACT_KIND, newest_first=False)
        audit = self._store.find_records(self._tenant, AUDIT_KIND)
        self._check(records + audit)
        undone = undone_by(audit)
        facts = [Fact.from_record(r) for r in records]
        return GovernanceStats(
            facts=len(facts),
            by_status=dict(Counter(f.status for f in facts)),
            by_memory_type=dict(Counter(f.memory_type for f in facts)),
            by_source_type=dict(Counter(f.source_type for f in facts)),
            mean_trust=round(sum(f.trust for f in facts) / len(facts), 4) if facts else 0.0,
            audit_entries=len(audit),
            rolled_back_entries=sum(
                1 for r in audit if r.id in undone or r.data.get("rolled_back")
            ),
            signed=self.policy.signing_key is not None,
            poisoning_held=sum(1 for f in facts if f.poisoning),
            poisoning_rejected=sum(
                1
                for r in audit
                if r.data.get("action") == "refuse"
                and (r.data.get("detail") or {}).get("rule") == "poisoning"
            ),
            oldest_fact_at=min((f.created_at for f in facts), default=None),
            newest_fact_at=max((f.created_at for f in facts), default=None),
        )

    # ------------------------------------------------------------------ retrieval

    def recall(
        self,
        query: str,
        *,
        max_tokens: int = 500,
        limit: int | None = None,
        memory_types: Sequence[str] | None = None,
        now: datetime | None = None,
    ) -> list[ScoredFact]:
        """The visible current facts that best answer ``query``, within ``max_tokens``.

        Scored as :mod:`graphmem.policy.scoring` says; ties broken by newer first, then id.

        Raises:
            InvalidInput: ``max_tokens`` or ``limit`` not positive; unknown memory type.
        """
        types = check_recall(query, max_tokens, limit, memory_types)
        return rank_facts(
            self.facts(),
            query,
            half_life=self.policy.half_life,
            now=as_utc(now, "now") or utcnow(),
            max_tokens=max_tokens,
            limit=limit,
            memory_types=types,
        )
