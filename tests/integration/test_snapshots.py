"""Sealed snapshots before and after a curation change: both kept, diffed, the first restored offline."""

from __future__ import annotations

from pathlib import Path

import pytest

from bib2graph.networks.schema import NODES
from bib2graph.tables import read_table

from .conftest import keep_networks
from .helpers import b2g, tree_state

pytestmark = pytest.mark.integration


@pytest.mark.long
def test_two_snapshots_diff_and_restore(demo):
    ws = keep_networks(demo, "coupling", "citation")
    assert b2g("run", "--cores", "2", "--workspace", str(ws)).returncode == 0   # the report, again
    first = b2g("snapshot", "--name", "before", "--json", "--workspace", str(ws)).envelope["data"]
    assert first["created"]
    again = b2g("snapshot", "--name", "before", "--json", "--workspace", str(ws)).envelope
    assert again["data"]["id"] == first["id"] and not again["data"]["created"] and again["warnings"]
    sealed = tree_state(Path(first["path"]))

    victim = sorted(read_table(ws / "results/networks/coupling/nodes.parquet", NODES).node_id)[0]
    assert b2g("reject", victim, "--reason", "off-topic", "--workspace", str(ws)).returncode == 0
    assert b2g("run", "--cores", "2", "--workspace", str(ws)).returncode == 0
    second = b2g("snapshot", "--name", "after", "--json", "--workspace", str(ws)).envelope["data"]
    assert second["id"] != first["id"]

    listed = b2g("snapshot", "list", "--json", "--workspace", str(ws)).envelope["data"]["snapshots"]
    assert {s["id"] for s in listed} == {first["id"], second["id"]}
    assert tree_state(Path(first["path"])) == sealed  # never overwritten

    diff = b2g("snapshot", "diff", first["id"], second["id"], "--json", "--workspace", str(ws)).envelope["data"]
    assert diff["works_removed"] == [victim] and diff["works_added"] == []
    assert diff["decisions_changed"] == [{"work_id": victim, "from": None, "to": "reject"}]
    coupling = diff["networks"]["coupling"]["nodes"]
    assert coupling["to"] == coupling["from"] - 1

    restored = b2g("snapshot", "restore", first["id"], "--json", "--workspace", str(ws),
                   env={"B2G_OPENALEX_URL": "http://127.0.0.1:9"})  # nothing listens there: no network
    assert restored.returncode == 0, restored.stderr[-2000:]
    data = restored.envelope["data"]
    assert data["identical"] is True and data["files_compared"] == 7 * 2   # two networks, seven files each (nodes, edges, evidence, metrics;
                                                                         # graph/nodes, graph/metrics, stability/stability.json)
    nodes = read_table(Path(data["restored_into"]) / "results/networks/coupling/nodes.parquet", NODES)
    assert victim in set(nodes.node_id)


def test_unknown_snapshot_is_a_data_error(built_demo):
    ws = built_demo
    call = b2g("snapshot", "diff", "nope", "nada", "--json", "--workspace", str(ws))
    assert call.returncode == 2 and call.envelope["error"]["code"] == "UNKNOWN_SNAPSHOT"
