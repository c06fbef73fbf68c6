"""Concurrent appends over HTTP stay on one branch (issue 29: 102 of 300 acknowledged
turns fell off the active branch when single appends and batches were mixed)."""

from __future__ import annotations

import threading

from server_support import Api


def test_single_appends_and_batches_from_many_clients_stay_on_one_branch(api: Api) -> None:
    base = "/v1/conversations/busy"
    acknowledged: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def work(n: int) -> None:
        try:
            with api.client("gamma") as client:
                for i in range(10):
                    if i % 3 == 2:
                        turns = [{"role": "npc", "content": f"{n}-{i}-{j}"} for j in range(3)]
                        response = client.post(f"{base}/turns/batch", json={"turns": turns})
                        got = [t["content"] for t in response.json()["turns"]]
                    else:
                        body = {"role": "player", "content": f"{n}-{i}"}
                        got = [client.post(f"{base}/turns", json=body).json()["content"]]
                    with lock:
                        acknowledged.extend(got)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert errors == []
    assert len(acknowledged) == 8 * (7 + 3 * 3)
    with api.client("gamma") as client:
        history = client.get(f"{base}/history").json()["turns"]
        every = client.get(f"{base}/turns").json()["turns"]
    assert sorted(t["content"] for t in history) == sorted(acknowledged)
    assert len(every) == len(history)  # nothing forked off the active branch
    assert [t["parent_id"] for t in history[1:]] == [t["id"] for t in history[:-1]]
