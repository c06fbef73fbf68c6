"""The NPC minds figures of ``graphmem bench`` run and report baselines (no timing asserts)."""

from __future__ import annotations

import graphmem
from graphmem.tools.bench import main as bench


def test_minds_figures_report_beliefs_beside_the_identity_snapshot() -> None:
    entities, rels = bench.synthetic_world(600, seed=3)
    with graphmem.open("memory://", tenant="bench") as mem:
        mem.upsert_entities(entities)
        mem.upsert_relationships(rels)
        counter = bench.TraceCounter()
        figures = list(bench._minds_figures(mem, counter, 600, 60, True, lambda line: None))

        names = [f.name for f in figures]
        assert names[0].startswith("record_event p50")
        assert names[1].startswith("beliefs(npc) p50 at 600 entities")
        assert names[2].startswith("perspective snapshot p50 at 600 entities")
        for figure in figures:
            assert figure.value > 0 and figure.baseline and figure.ratio
        assert len(mem.events()) == 10 * 14
        assert figures[0].round_trips == 0


def test_bench_minds_reports_the_tavern_beside_its_baselines() -> None:
    import argparse

    from graphmem.tools.bench import minds as bench_minds

    args = argparse.Namespace(store="memory://", quick=True, seed=1, npcs="10,30")
    figures = list(bench_minds.minds_figures(args, lambda line: None, bench.Figure))

    names = [f.name for f in figures]
    assert [n.split(",")[0] for n in names[:6]] == [
        "record_event p50",
        "tell p50",
        "announce p50",
        "belief read of order 1 p50",
        "belief read of order 2 p50",
        "belief read of order 4 p50",
    ]
    assert len(figures) == 2 * 8 and "1,000" not in " ".join(names)
    for figure in figures[:6]:
        assert figure.value > 0 and figure.baseline and figure.ratio
    assert figures[6].unit == "B" and figures[6].value > 0
