"""The map layout: deterministic, clusters apart, components packed apart, edge cases handled."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bib2graph.errors import DataError
from bib2graph.networks.layout import layout
from bib2graph.networks.schema import EDGES, LAYOUT, NODES
from bib2graph.phases import run_layout
from bib2graph.skips import Skips
from bib2graph.tables import read_table, write_table

from .layout_reference import layout as layout_before


def clustered(n_clusters: int = 4, size: int = 30, p_in: float = 0.3, bridges: int = 3, seed: int = 0):
    """A planted-partition graph: dense clusters joined by a few bridges."""
    rng = np.random.default_rng(seed)
    n = n_clusters * size
    cluster = np.repeat(np.arange(n_clusters), size)
    i, j = np.triu_indices(n, 1)
    same = cluster[i] == cluster[j]
    keep = same & (rng.random(len(i)) < p_in)
    src, dst = list(i[keep]), list(j[keep])
    for c in range(n_clusters):
        for _ in range(bridges):
            src.append(c * size + int(rng.integers(size)))
            dst.append(((c + 1) % n_clusters) * size + int(rng.integers(size)))
    return n, np.array(src), np.array(dst), cluster + 1


def test_the_same_network_gives_the_same_coordinates_and_a_seed_changes_them():
    n, s, t, c = clustered()
    a = layout(n, s, t, None, c, seed=7, iterations=100)
    b = layout(n, s, t, None, c, seed=7, iterations=100)
    assert a.tobytes() == b.tobytes()
    assert not np.array_equal(a, layout(n, s, t, None, c, seed=8, iterations=100))
    assert np.array_equal(a, np.round(a, 6)) and np.abs(a).max() == 1.0


def test_clusters_lie_apart():
    n, s, t, c = clustered()
    xy = layout(n, s, t, None, c, iterations=100)
    centres = np.array([xy[c == k].mean(axis=0) for k in np.unique(c)])
    spread = np.mean([np.linalg.norm(xy[c == k] - centres[k - 1], axis=1).mean() for k in np.unique(c)])
    gaps = [np.linalg.norm(centres[a] - centres[b]) for a in range(len(centres)) for b in range(a)]
    assert min(gaps) > 1.5 * spread


def test_components_and_isolates_are_packed_without_overlapping():
    n, s, t, c = clustered(n_clusters=3, bridges=0)          # three components
    n_all = n + 5                                            # and five isolates
    xy = layout(n_all, s, t, np.ones(len(s)), np.r_[c, [4, 5, 6, 7, 8]], iterations=50)
    groups = [np.flatnonzero(c == k) for k in (1, 2, 3)] + [[k] for k in range(n, n_all)]
    boxes = [(xy[g, 0].min(), xy[g, 1].min(), xy[g, 0].max(), xy[g, 1].max()) for g in groups]
    for a in range(len(boxes)):
        for b in range(a):
            A, B = boxes[a], boxes[b]
            assert A[2] < B[0] or B[2] < A[0] or A[3] < B[1] or B[3] < A[1], (a, b)


@pytest.mark.parametrize("n,edges", [(0, []), (1, []), (2, [(0, 1)]), (3, [(0, 0)]), (4, [(0, 1), (1, 0), (1, 0)])])
def test_small_and_degenerate_networks(n, edges):
    s = np.array([e[0] for e in edges], dtype=np.int64)
    t = np.array([e[1] for e in edges], dtype=np.int64)
    xy = layout(n, s, t)
    assert xy.shape == (n, 2) and np.isfinite(xy).all()
    assert len({tuple(p) for p in xy}) == n                  # no two nodes on one spot
    assert not np.signbit(xy[xy == 0]).any()                # no negative zeros in the file


def test_unknown_algorithm_is_refused():
    with pytest.raises(ValueError, match="unknown layout algorithm"):
        layout(2, [0], [1], algorithm="kk")


def arcs(n: int = 400, m: int = 3000, seed: int = 1):
    """Random arcs within groups of 40 and across: repeats, both directions, self-loops, isolates."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, n - 20, m)
    t = np.where(rng.random(m) < 0.8, s // 40 * 40 + rng.integers(0, 40, m), rng.integers(0, n - 20, m)) % (n - 20)
    return n, s, t, rng.random(m) * 5 + 0.1, rng.integers(1, 12, n)


def undirected_table(n, s, t, w):
    """The same edges as a network job writes an undirected table: each once, source < target, sorted."""
    key, first = np.unique(np.minimum(s, t) * n + np.maximum(s, t), return_index=True)
    keep = key // n != key % n
    return (key // n)[keep].astype(np.int32), (key % n)[keep].astype(np.int32), w[first[keep]]


@pytest.mark.parametrize("case", ["arcs", "unweighted", "undirected table", "reversed table"])
def test_the_coordinates_are_those_before_the_edges_were_held_once(case):
    n, s, t, w, c = arcs()
    if case == "unweighted":
        w, c = None, None
    elif case != "arcs":
        s, t, w = undirected_table(n, s, t, w)
        if case == "reversed table":
            s, t, w = t[::-1], s[::-1], w[::-1]
    before = layout_before(n, s, t, w, c, seed=5, iterations=40).tobytes()
    assert layout(n, s, t, w, c, seed=5, iterations=40).tobytes() == before
    s, t = np.array(s, dtype=np.int32), np.array(t, dtype=np.int32)   # the job's: read for the layout alone
    w = None if w is None else np.array(w, dtype=np.float64)
    assert layout(n, s, t, w, c, seed=5, iterations=40, copy=False).tobytes() == before


def _network_tables(folder, n, s, t, w, c):
    ids = pd.Series([f"W{k:05d}" for k in range(n)], dtype="str")
    zeros = np.zeros(n)
    nodes = pd.DataFrame({"node_id": ids, "label": ids, "occurrences": 1, "year": 2000, "mean_year": zeros,
                          "doi": None, "in_corpus": True, "degree": 0, "strength": zeros, "link_strength": zeros,
                          "pagerank": zeros, "betweenness": zeros, "eigenvector": zeros, "cluster": c,
                          "cluster_label": None, "silhouette": zeros})
    write_table(nodes, NODES, folder / "nodes.parquet")
    write_table(pd.DataFrame({"source": ids[s].to_numpy(), "target": ids[t].to_numpy(), "count": w, "weight": w}),
                EDGES, folder / "edges.parquet")
    return {"nodes": str(folder / "nodes.parquet"), "edges": str(folder / "edges.parquet")}


def test_the_layout_job_reads_its_edges_as_codes_and_writes_the_bytes_of_before(tmp_path):
    """The job's Parquet file is the one the pandas reading (string IDs, get_indexer) and the layout of
    before gave; its edges as the network job writes them, and as arcs both ways."""
    n, s, t, w, c = arcs()
    spec = {"layout": {"algorithm": "fr", "seed": 3, "iterations": 30}}
    pairs = pd.DataFrame({"s": s, "t": t, "w": w}).drop_duplicates(["s", "t"])
    for name, edges in {"undirected": undirected_table(n, s, t, w), "arcs": (pairs.s, pairs.t, pairs.w)}.items():
        folder = tmp_path / name
        folder.mkdir()
        inp = _network_tables(folder, n, *edges, c)
        counts = run_layout(spec, "citation", inp, {"layout": str(folder / "layout.parquet")}, Skips())
        nodes, table = read_table(inp["nodes"], NODES), read_table(inp["edges"], EDGES)
        ids = pd.Index(nodes["node_id"])
        xy = layout_before(n, ids.get_indexer(table["source"]), ids.get_indexer(table["target"]),
                           table["weight"].to_numpy(), nodes["cluster"].to_numpy(dtype="int64"), seed=3, iterations=30)
        write_table(pd.DataFrame({"node_id": nodes["node_id"], "x": xy[:, 0], "y": xy[:, 1]}), LAYOUT,
                    folder / "before.parquet")
        assert (folder / "layout.parquet").read_bytes() == (folder / "before.parquet").read_bytes(), name
        assert counts == {"nodes": n, "edges": len(table)}


@pytest.mark.parametrize("broken", ["stranger", "weight"])
def test_an_edge_table_that_is_not_the_networks_is_refused(tmp_path, broken):
    n, s, t, w, c = arcs(n=60, m=200)
    s, t, w = undirected_table(n, s, t, w)
    inp = _network_tables(tmp_path, n, s, t, w, c)
    edges = read_table(inp["edges"], EDGES)
    if broken == "stranger":
        edges.loc[0, "source"] = "W99999"
    else:
        edges.loc[0, "weight"] = 0.0
    edges.to_parquet(inp["edges"])
    with pytest.raises(DataError, match="not a node" if broken == "stranger" else "not positive"):
        run_layout({"layout": {"algorithm": "fr", "seed": 1, "iterations": 5}}, "coupling", inp,
                   {"layout": str(tmp_path / "layout.parquet")}, Skips())
