"""The benchmark runs end to end and reports figures with their baselines (no timing asserts)."""

import argparse
import json

from graphmem.tools.bench import main as bench


def test_quick_bench_prints_one_json_object_with_baselines(capsys):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--quick", "--json", "--samples", "50", "--turns", "200"])
    assert bench.run(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["store"] == "memory://"
    names = [r["name"] for r in report["results"]]
    assert "identity snapshot p50 at 1,000 entities" in names
    assert "identity snapshot p99 at 1,000 entities" in names
    assert "turn append rate" in names
    assert "history of a 200-turn branch (p50)" in names
    assert "fork (p50)" in names
    assert "identity snapshot p50, telemetry on vs off (1,000)" in names
    assert "identity snapshot p50 in a traced request, telemetry on vs off (1,000)" in names
    assert any(n.startswith("bulk ingest") for n in names)
    for row in report["results"]:
        assert set(row) == {"name", "value", "unit", "baseline", "ratio", "round_trips", "better"}
        assert row["better"] == ("higher" if row["unit"].endswith("/s") else "lower")
        assert row["value"] > 0
        if row["baseline"] is not None:
            assert abs(row["ratio"] - row["value"] / row["baseline"]) < 1e-9
    snapshot = next(r for r in report["results"] if r["name"].startswith("identity snapshot p50"))
    assert snapshot["round_trips"] == 0  # embedded: no server round trips


def test_bench_data_has_about_ten_relationships_per_entity():
    entities, rels = bench.synthetic_world(500, seed=1)
    assert len(entities) == 500
    assert 2300 <= len(rels) <= 2500  # five out (and so five in) per entity, minus repeats


def test_quick_retrieval_bench_reports_vector_retrieve_and_embedding(capsys):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--retrieval", "--quick", "--json"])
    assert bench.run(args) == 0
    report = json.loads(capsys.readouterr().out)
    names = [r["name"] for r in report["results"]]
    assert "vector top-10 p50 at 10,000 x 384" in names
    assert "retrieve p50 at 5,000 chunks (embedding excluded)" in names
    after_write = next(r for r in report["results"] if "right after a write" in r["name"])
    assert after_write["baseline"] > 0 and after_write["value"] > 0
    assert any(n.startswith("embedding throughput") for n in names)
    vector = next(r for r in report["results"] if r["name"].startswith("vector top-10"))
    assert vector["baseline"] > 0 and vector["value"] > 0


def test_quick_recall_bench_reports_indexing_append_embedding_and_retrieve(capsys):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--recall", "--quick", "--json", "--embedder", "hashing"])
    assert bench.run(args) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in report["results"]}
    indexed = next(r for n, r in rows.items() if n.startswith("turns indexed per second"))
    raw = next(r for n, r in rows.items() if n.startswith("model batch throughput"))
    assert indexed["baseline"] == raw["value"] > 0  # beside the model, in the same run
    assert any(n.startswith("append p50 with indexing deferred") for n in rows)
    assert any(n.startswith("append p99 with index_batch=64") for n in rows)
    assert any(n.startswith("query embedding p50") for n in rows)
    retrieve = rows["retrieve p50 over a 2,000-turn conversation (embedding excluded)"]
    assert retrieve["value"] > 0 and retrieve["baseline"] > 0


def test_quick_governance_bench_reports_learn_relate_and_snapshot(capsys):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--governance", "--quick", "--json", "--samples", "100"])
    assert bench.run(args) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in report["results"]}
    assert sorted(rows) == [
        "governed learn with its edge (workspace)",
        "governed relate (one relationship)",
        "snapshot p50, NPC with 10 governed facts (edges)",
    ]
    assert all(r["value"] > 0 and r["baseline"] > 0 for r in rows.values())


def test_quick_storage_bench_reports_every_figure_beside_its_baseline(capsys):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--storage", "--quick", "--json", "--samples", "60"])
    assert bench.run(args) == 0
    report = json.loads(capsys.readouterr().out)
    by_name = {r["name"]: r for r in report["results"]}
    ingest = by_name["bulk ingest into file:// (2,000 entities, 19,993 relationships)"]
    assert ingest["unit"] == "items/s" and ingest["baseline"] > 0
    reopen = by_name["reopen file:// (2,000 entities, 19,993 relationships)"]
    assert reopen["unit"] == "s" and reopen["baseline"] > 0
    assert by_name["peak memory added by that reopen"]["baseline"] > 0
    assert (
        by_name["reopen of the journal (previous format), baseline the reopen above"]["value"] > 0
    )
    for what in ("first use of each NPC", "asked again"):
        name = f"identity snapshot p50 on the reopened file:// store ({what})"
        assert by_name[name]["value"] > 0 and by_name[name]["baseline"] > 0
    assert by_name["identity snapshot p50 on memory://"]["baseline"] > 0
    assert by_name["identity snapshot p50 after preload=True (first use of each NPC)"]["value"] > 0


def test_storage_world_has_ten_relationships_out_of_each_entity():
    entities, rels = bench.synthetic_world(500, seed=1, per_entity=10)
    assert len(entities) == 500
    assert 4800 <= len(rels) <= 5000


def test_table_has_headers_and_says_which_way_is_better(capsys):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--quick", "--samples", "50", "--turns", "200"])
    assert bench.run(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:6] == ["figure", "value", "unit", "baseline", "ratio", "better"]
    rate = next(line for line in lines if line.startswith("turn append rate"))
    assert " higher " in rate and ("faster" in rate or "slower" in rate)
    snapshot = next(line for line in lines if line.startswith("identity snapshot p50"))
    assert " lower " in snapshot
    assert "which way is better" in lines[-1]


def test_readings_point_the_same_way_for_rates_and_times():
    assert bench.Figure("t", 2.0, "us").with_baseline(1.0).reading() == "2.00x slower"
    assert bench.Figure("r", 2.0, "items/s").with_baseline(1.0).reading() == "2.00x faster"
    assert bench.Figure("r", 1.0, "req/s").with_baseline(4.0).reading() == "4.00x slower"
    assert bench.Figure("n", 1.0, "us").reading() == ""
