"""Acceptance 3: every read the API shares with the CLI returns the same `data` from both, and every
body is an envelope whose data validates against the verb's schema (checked in `body`)."""

from __future__ import annotations

import pytest

from ..integration.helpers import b2g
from .conftest import body


@pytest.fixture(scope="module")
def known(reads) -> dict:
    """A work, a network and one of its edges of the demo, found through the API itself."""
    with reads.client() as client:
        networks = body(client.get("/api/networks"))["data"]["networks"]
        kind = next(n["kind"] for n in networks if n["kind"] == "citation")
        page = body(client.get(f"/api/networks/{kind}", params={"edges": 5}))["data"]
        edge = page["edges"][0]
        queue = body(client.get("/api/queue", params={"limit": 3}))["data"]
    assert len(page["edges"]) == 5 and page["edges_next"] == 5
    return {"kind": kind, "source": edge["source"], "target": edge["target"], "work": edge["source"],
            "pending": queue["works"][0]["work_id"] if queue["works"] else edge["source"]}


def cases(known: dict) -> list[tuple[str, dict, list[str]]]:
    """(API path, query, CLI arguments) of every read both adapters have."""
    kind, source, target = known["kind"], known["source"], known["target"]
    return [("/api/status", {}, ["status"]),
            ("/api/prisma", {}, ["prisma"]),
            ("/api/networks", {}, ["networks"]),
            (f"/api/networks/{kind}", {}, ["network", kind]),
            (f"/api/networks/{kind}", {"edges": 7, "offset": 3}, ["network", kind, "--edges", "7", "--offset", "3"]),
            (f"/api/networks/{kind}/evidence", {"source": source, "target": target},
             ["evidence", kind, source, target]),
            (f"/api/works/{known['work']}", {}, ["inspect", known["work"]]),
            (f"/api/works/{known['pending']}", {}, ["inspect", known["pending"]]),
            ("/api/search", {"q": "learning", "limit": 5}, ["search", "learning", "--limit", "5"]),
            ("/api/queue", {"limit": 10}, ["queue", "--limit", "10"])]


@pytest.mark.long
def test_api_and_cli_return_the_same_data_for_every_shared_read(reads, known):
    verbs = set()
    with reads.client() as client:
        for path, query, args in cases(known):
            api = body(client.get(path, params=query))
            cli = b2g(*args, "--json", "--workspace", str(reads.root)).envelope
            assert api["ok"] and cli["ok"], (path, api["error"], cli["error"])
            assert api["command"] == cli["command"] == args[0]
            assert api["data"] == cli["data"], path
            assert api["warnings"] == cli["warnings"], path
            verbs.add(args[0])
    assert verbs == {"status", "prisma", "networks", "network", "evidence", "inspect", "search", "queue"}


@pytest.mark.parametrize("path, query, code, status", [
    ("/api/works/W999999999999", {}, "UNKNOWN_ID", 404),
    ("/api/networks/nonsense", {}, "UNKNOWN_NETWORK", 404),
    ("/api/networks/citation", {"edges": -1}, "USAGE_ERROR", 400),
    ("/api/networks/citation", {"edges": "many"}, "USAGE_ERROR", 400),
    ("/api/search", {}, "USAGE_ERROR", 400),
    ("/api/networks/citation/density", {"metric": "size"}, "USAGE_ERROR", 400),
    ("/api/networks/nonsense/density", {}, "UNKNOWN_NETWORK", 404),
    ("/api/nothing/here", {}, "NOT_FOUND", 404),
    ("/api", {}, "NOT_FOUND", 404),                                  # was the GUI's page
    ("/api/search", {"q": "a\x00b"}, "USAGE_ERROR", 400),            # NUL: MCP and the CLI refuse it too
    ("/api/queue", {"before": "W1\x00"}, "USAGE_ERROR", 400),
    ("/api/networks/citation/evidence", {"source": "\x00", "target": "x"}, "USAGE_ERROR", 400),
    ("/api/works/W1%00", {}, "USAGE_ERROR", 400),
])
def test_errors_are_envelopes_with_the_tables_status(reads, path, query, code, status):
    with reads.client() as client:
        response = client.get(path, params=query)
    envelope = body(response)
    assert (envelope["error"]["code"], response.status_code) == (code, status)


@pytest.mark.parametrize("metric", ["strength", "pagerank"])
def test_density_is_the_item_density_of_the_layout_weighted_by_the_metric(reads, metric):
    """The API's grid equals item_density over the layout's positions and the nodes' metric, read here."""
    import numpy as np
    import pandas as pd

    from bib2graph.density import item_density

    with reads.client() as client:
        data = body(client.get("/api/networks/citation/density", params={"metric": metric}))["data"]
    layout = pd.read_parquet(reads.root / "results/layouts/citation/layout.parquet")
    nodes = pd.read_parquet(reads.root / "results/networks/citation/nodes.parquet", columns=["node_id", metric])
    placed = layout.merge(nodes, on="node_id").sort_values("node_id")
    expected = item_density(placed["x"], placed["y"], placed[metric])
    values = np.array(data["values"])
    assert (data["metric"], data["weighted"], data["nodes"]) == (metric, True, len(placed))
    assert values.shape == (data["size"], data["size"]) and values.max() == 1.0
    assert data["extent"] == list(expected.extent) and data["bandwidth"] == expected.bandwidth
    assert np.array_equal(values, expected.values)


def test_the_gui_is_served_at_the_root(reads):
    from bib2graph.api.static import STATIC

    with reads.client() as client:
        index = client.get("/")
        deep = client.get("/map/citation")
        missing_asset = client.get("/assets/none-such.js")
    assert index.status_code == 200 and index.headers["content-type"].startswith("text/html")
    assert deep.text == index.text                       # the app's own routes survive a reload
    assert missing_asset.status_code == 404
    if (STATIC / "index.html").is_file():
        assert index.content == (STATIC / "index.html").read_bytes()
    else:
        assert "GUI assets are missing" in index.text


def test_a_work_is_read_by_its_doi_or_url_as_the_cli_reads_it(reads, known):
    """`GET /api/works/{id}` took no slash: a DOI or an OpenAlex URL was 404 "no such endpoint"."""
    import pandas as pd

    works = pd.read_parquet(reads.root / "results/chain/pool/works.parquet", columns=["work_id", "doi"])
    work = works.dropna(subset=["doi"]).sort_values("work_id").iloc[0]
    doi = work["doi"].removeprefix("https://doi.org/")
    with reads.client() as client:
        for given in (doi, f"https://doi.org/{doi}", f"https://openalex.org/{work['work_id']}"):
            api = body(client.get(f"/api/works/{given}"))
            cli = b2g("inspect", given, "--json", "--workspace", str(reads.root)).envelope
            assert api["ok"] and api["data"]["work"]["work_id"] == work["work_id"], (given, api["error"])
            assert api["data"] == cli["data"], given
