"""Decisions through the API: the same service, lock, audit fields and validation as `b2g reject`."""

from __future__ import annotations

import json
import socket

import pytest

from bib2graph import curation

from ..integration.conftest import copy_workspace
from ..integration.helpers import b2g
from .conftest import body


def rows(root) -> list[tuple]:
    """The decisions of a workspace without their time: (id, decision, reason, by)."""
    found = curation.read(root / "config/curation.tsv")
    return sorted((d.work_id, d.decision, d.reason, d.decided_by) for d in found.values())


@pytest.mark.long
def test_a_decision_lands_in_curation_as_the_clis_and_makes_the_corpus_stale(gui, built_demo, tmp_path):
    twin = copy_workspace(built_demo, tmp_path / "twin")
    with gui.client() as client:
        before = body(client.get("/api/status"))["data"]
        assert before["phases"]["corpus"] == "complete"
        pending = body(client.get("/api/queue", params={"limit": 2}))["data"]["works"]
        ids = [w["work_id"] for w in pending]
        api = body(client.post("/api/decisions", json={"decision": "reject", "ids": ids, "reason": "off topic",
                                                       "by": "alice"}))
        after = body(client.get("/api/status"))["data"]
    cli = b2g("reject", *ids, "--reason", "off topic", "--by", "alice", "--json", "--workspace", str(twin)).envelope

    assert api["command"] == "reject" and api["data"]["changed"] == ids
    assert {**api["data"], "workspace": None} == {**cli["data"], "workspace": None}
    assert rows(gui.root) == rows(twin) and [r[0] for r in rows(gui.root) if r[1] == "reject"] == ids
    stamped = curation.read(gui.root / "config/curation.tsv")[ids[0]].decided_at
    assert stamped.endswith("Z") and stamped[:2] == "20"
    assert after["phases"]["corpus"] == "stale" and after["up_to_date"] is False
    assert after["counts"]["rejected"] == before["counts"]["rejected"] + 2

    with gui.client() as client:                  # the screening view's undo: the decision is withdrawn
        undone = body(client.delete(f"/api/decisions/{ids[0]}"))
        again = body(client.delete(f"/api/decisions/{ids[0]}"))
        back = body(client.get("/api/status"))["data"]
    cli_undo = b2g("withdraw", ids[0], "--json", "--workspace", str(twin)).envelope
    assert undone["command"] == "withdraw" and undone["data"]["withdrawn"] == [ids[0]]
    assert again["data"]["withdrawn"] == [] and again["data"]["ids"] == [ids[0]]
    assert {**undone["data"], "workspace": None} == {**cli_undo["data"], "workspace": None}
    assert rows(gui.root) == rows(twin) and ids[0] not in {r[0] for r in rows(gui.root)}
    assert back["counts"]["rejected"] == after["counts"]["rejected"] - 1
    assert back["counts"]["pending"] == after["counts"]["pending"] + 1


@pytest.mark.long
def test_bad_decisions_record_nothing(gui):
    before = (gui.root / "config/curation.tsv").read_bytes()
    with gui.client() as client:
        work = body(client.get("/api/queue", params={"limit": 1}))["data"]["works"][0]["work_id"]
        cases = [({"decision": "reject", "ids": [work], "reason": " "}, "USAGE_ERROR", 400),
                 ({"decision": "reject", "ids": [work, "W999999999999"], "reason": "r"}, "UNKNOWN_ID", 404),
                 ({"decision": "maybe", "ids": [work]}, "USAGE_ERROR", 400),
                 ({"decision": "accept", "ids": []}, "USAGE_ERROR", 400),
                 # a misspelt field was dropped without a word: the reject recorded with no reason given
                 ({"decision": "accept", "ids": [work], "reasn": "why"}, "USAGE_ERROR", 400),
                 # JSON's lone surrogates and NUL: 500 INTERNAL (one not even an envelope) deeper down
                 ({"decision": "reject", "ids": [work], "reason": "\ud800"}, "USAGE_ERROR", 400),
                 ({"decision": "accept", "ids": [work], "by": "\udfff"}, "USAGE_ERROR", 400),
                 ({"decision": "accept", "ids": ["W1\ud800"]}, "USAGE_ERROR", 400),
                 ({"decision": "reject", "ids": [work], "reason": "a\u0000b"}, "USAGE_ERROR", 400)]
        for payload, code, status in cases:        # json.dumps escapes a lone surrogate, as JS's JSON does
            response = client.post("/api/decisions", content=json.dumps(payload).encode(),
                                   headers={"Content-Type": "application/json"})
            assert (body(response)["error"]["code"], response.status_code) == (code, status), payload
        # a key given twice: the last value counted, and an accept became a reject
        twice = client.post("/api/decisions", content=('{"decision": "accept", "ids": ["%s"], "decision": "reject", '
                                                       '"reason": "x"}' % work).encode(),
                            headers={"Content-Type": "application/json"})
        assert (body(twice)["error"]["code"], twice.status_code) == ("USAGE_ERROR", 400)
        assert "'decision' twice" in body(twice)["error"]["message"]
        not_json = client.post("/api/decisions", content=b"reject W1", headers={"Content-Type": "text/plain"})
        assert body(not_json)["error"]["code"] == "USAGE_ERROR"
        # a body over 1 MiB (a 6 MB one was read and processed) is refused before any route reads it,
        # whether its length is declared or it comes in chunks
        padded = json.dumps({"decision": "reject", "ids": [work], "reason": "r", "x": "y" * (1 << 20)}).encode()
        chunks = (padded[i:i + 65536] for i in range(0, len(padded), 65536))
        for response in (client.post("/api/decisions", content=padded, headers={"Content-Type": "application/json"}),
                         client.post("/api/decisions", content=chunks, headers={"Content-Type": "application/json"})):
            assert (body(response)["error"]["code"], response.status_code) == ("PAYLOAD_TOO_LARGE", 413)
        small = client.post("/api/decisions", content=b"x" * 1000, headers={"Content-Type": "application/json"})
        assert body(small)["error"]["code"] == "USAGE_ERROR"   # a body under the cap reaches its route
        for args in (["\ud800"], ["--forcerun", "\u0000"]):
            response = client.post("/api/run", content=json.dumps({"args": args}).encode(),
                                   headers={"Content-Type": "application/json"})
            assert (body(response, 202)["error"]["code"], response.status_code) == ("USAGE_ERROR", 400), args
    # chunks that also declare a small Content-Length: the server reads the chunks, so must the cap
    raw = (f"POST /api/decisions HTTP/1.1\r\nHost: 127.0.0.1:{gui.port}\r\nAuthorization: Bearer {gui.token}\r\n"
           "Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
    raw += b"".join(b"%x\r\n%s\r\n" % (len(padded[i:i + 65536]), padded[i:i + 65536])
                    for i in range(0, len(padded), 65536)) + b"0\r\n\r\n"
    with socket.create_connection(("127.0.0.1", gui.port), timeout=60) as conn:
        conn.sendall(raw)
        answer = conn.makefile("rb").readline()
    assert answer.split()[1] == b"413", answer   # refused, never read into the route
    assert (gui.root / "config/curation.tsv").read_bytes() == before


def test_a_decision_is_withdrawn_by_its_url_or_doi(gui):
    """The route took no slash, so a DOI or an OpenAlex URL could not name the work (404)."""
    import pandas as pd

    pool = pd.read_parquet(gui.root / "results/chain/pool/works.parquet")
    first, second = pool.dropna(subset=["doi"]).sort_values("work_id").head(2)[["work_id", "doi"]].itertuples(
        index=False)
    with gui.client() as client:
        body(client.post("/api/decisions", json={"decision": "accept", "ids": [first.work_id, second.work_id]}))
        by_url = body(client.delete(f"/api/decisions/https://openalex.org/{first.work_id}"))
        by_doi = body(client.delete(f"/api/decisions/{second.doi}"))
    assert by_url["data"]["withdrawn"] == [first.work_id] and by_doi["data"]["withdrawn"] == [second.work_id]
