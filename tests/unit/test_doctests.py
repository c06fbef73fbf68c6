"""The examples in docstrings run, on the embedded backend."""

import doctest
import importlib

import pytest

MODULES = [
    "graphmem",
    "graphmem.core.checks",
    "graphmem.core.models.base",
    "graphmem.core.models.graph",
    "graphmem.core.models.turns",
    "graphmem.core.registry",
    "graphmem.core.contract.rooms",
    "graphmem.memory.facade",
    "graphmem.memory.questions",
    "graphmem.conversation.tree",
    "graphmem.doors.aio",
    "graphmem.core.events",
    "graphmem.conversation.summarize",
    "graphmem.policy.context",
    "graphmem.policy.llm_context",
    "graphmem.policy.snapshots",
    "graphmem.policy.summarizers",
    "graphmem.policy.health",
    "graphmem.policy.identity",
    "graphmem.policy.audit",
    "graphmem.policy.normalize",
    "graphmem.policy.pii",
    "graphmem.policy.poisoning",
    "graphmem.policy.governance",
    "graphmem.policy.rules",
    "graphmem.policy.facts",
    "graphmem.policy.sanitize",
    "graphmem.policy.consolidation",
    "graphmem.policy.lifecycle",
    "graphmem.policy.scoring",
    "graphmem.core.words",
    "graphmem.exchange.analysis",
    "graphmem.backends.networkx.indexes",
    "graphmem.backends.model_checks",
    "graphmem.retrieval.bridge",
    "graphmem.retrieval.linking",
    "graphmem.retrieval.pipeline",
    "graphmem.retrieval.steps",
    "graphmem.retrieval.fusion",
    "graphmem.backends.neo4j.fulltext",
    "graphmem.minds",
    "graphmem.minds.beliefs",
    "graphmem.minds.core",
    "graphmem.minds.models",
    "graphmem.minds.recaps",
    "graphmem.minds.render",
    "graphmem.minds.salience",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
