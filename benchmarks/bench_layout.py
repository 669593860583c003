"""Map layout of a synthetic clustered network (10k nodes, 100k edges by default).

The network is a seeded planted partition: nodes in clusters of heavy-tailed sizes, 90% of the edges
inside a cluster, the rest between random nodes, plus a few hundred isolated nodes and small components
(as co-authorship networks have). It prints the time of `layout` (the layout job's work: components,
cluster-aware start, Fruchterman-Reingold, packing, rounding) and, measured in the same run on the same
graph, two baselines: one bare igraph Fruchterman-Reingold call on the whole graph with the same number
of iterations (random start, no packing), and one sparse matrix-vector product per iteration as a floor
of any force-directed method. Each is the best of three interleaved runs (the machine is shared).
It also checks that two calls give byte-identical coordinates and prints a cluster separation score:
mean distance between the centres of the 20 largest clusters over the mean distance of their nodes to
their centre (higher: clusters more apart), for ours and for the bare FR call.

    python benchmarks/bench_layout.py                          # 10k nodes, 100k edges
    python benchmarks/bench_layout.py --nodes 2000 --edges 20000
    python benchmarks/bench_layout.py --job --nodes 100000 --edges 10000000 --iterations 20

With `--job` it measures the layout job instead: the network is written as the network job writes its
tables (OpenAlex-like node IDs, each undirected edge once, sorted), and `phases.run_layout` reads them in a
fresh process, which prints its seconds, its peak resident memory (VmHWM, as the job's log gives it), its
resident memory once imported, and the bytes per edge between the two. Memory does not depend on the
number of iterations, so a few steps measure it.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))


def clustered(n: int, m: int, seed: int = 3):
    """(source, target, weight, cluster) of a planted-partition graph with isolates and small pieces."""
    rng = np.random.default_rng(seed)
    core = int(n * 0.96)
    sizes = np.clip(rng.pareto(1.5, 200) * 40 + 10, 10, core // 4).astype(int)
    sizes = sizes[np.cumsum(sizes) <= core]
    sizes[-1] += core - sizes.sum()
    cluster = np.repeat(np.arange(1, len(sizes) + 1), sizes)
    starts = np.r_[0, np.cumsum(sizes)]
    src = rng.integers(0, core, m)
    c = cluster[src] - 1
    inside = starts[c] + (rng.random(m) * sizes[c]).astype(int)
    dst = np.where(rng.random(m) < 0.9, inside, rng.integers(0, core, m))
    pairs = np.arange(core, n - (n - core) // 2, 2)          # a few two-node components, the rest isolates
    src, dst = np.r_[src, pairs], np.r_[dst, pairs + 1]
    cluster = np.r_[cluster, np.arange(len(sizes) + 1, len(sizes) + 1 + n - core)]
    weight = rng.integers(1, 6, len(src)).astype(float)
    return src, dst, weight, cluster


def best(fn, runs: int = 3) -> float:
    """The best wall time of `runs` calls (the machine is shared and noisy)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def separation(xy: np.ndarray, cluster: np.ndarray, top: int = 20) -> float:
    """Mean distance between the centres of the `top` largest clusters over their mean radius."""
    labels, counts = np.unique(cluster, return_counts=True)
    chosen = labels[np.argsort(-counts, kind="stable")[:top]]
    centres = np.array([xy[cluster == k].mean(axis=0) for k in chosen])
    radius = np.mean([np.linalg.norm(xy[cluster == k] - centres[i], axis=1).mean() for i, k in enumerate(chosen)])
    gaps = [np.linalg.norm(centres[a] - centres[b]) for a in range(len(chosen)) for b in range(a)]
    return float(np.mean(gaps) / radius)


def job_tables(folder: Path, n: int, m: int) -> int:
    """nodes.parquet and edges.parquet of `clustered(n, m)` as the network job writes them (each
    undirected edge once, source < target, sorted by both); the number of edges written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    src, dst, weight, cluster = clustered(n, m)
    key, first = np.unique(np.minimum(src, dst) * np.int64(n) + np.maximum(src, dst), return_index=True)
    keep = key // n != key % n
    key, weight = key[keep], weight[first[keep]]
    ids = pa.array(np.char.add("W", np.char.zfill(np.arange(n).astype(str), 10)), pa.large_string())
    edges = pa.table({"source": ids.take(key // n), "target": ids.take(key % n), "count": weight, "weight": weight})
    pq.write_table(edges, folder / "edges.parquet", compression="zstd")
    del edges
    floats, ints = np.zeros(n), np.zeros(n, dtype=np.int64)
    nulls = pa.nulls(n, pa.large_string())
    nodes = pa.table({"node_id": ids, "label": ids, "occurrences": ints + 1, "year": ints + 2000, "mean_year": floats,
                      "doi": nulls, "in_corpus": np.ones(n, dtype=bool), "degree": ints, "strength": floats,
                      "link_strength": floats, "pagerank": floats, "betweenness": floats, "eigenvector": floats,
                      "cluster": cluster.astype(np.int64), "cluster_label": nulls, "silhouette": floats})
    pq.write_table(nodes, folder / "nodes.parquet", compression="zstd")
    return len(key)


def vm(field: str) -> float:
    """A field of /proc/self/status in MB (VmHWM: the peak resident memory; VmRSS: the current one)."""
    line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith(field + ":"))
    return int(line.split()[1]) / 1024


def run_job(folder: str, iterations: int) -> None:
    """The layout job on the tables in `folder`, in this (fresh) process: prints seconds and memory."""
    for module in ("bib2graph.networks.layout", "bib2graph.networks._igraph"):   # before the baseline
        importlib.import_module(module)
    from bib2graph.phases import run_layout
    from bib2graph.skips import Skips

    spec = {"layout": {"algorithm": "fr", "seed": 42, "iterations": iterations}}
    imported = vm("VmRSS")
    start = time.perf_counter()
    counts = run_layout(spec, "coupling", {"nodes": f"{folder}/nodes.parquet", "edges": f"{folder}/edges.parquet"},
                        {"layout": f"{folder}/layout.parquet"}, Skips())
    print(json.dumps({"seconds": time.perf_counter() - start, "peak_mb": vm("VmHWM"), "imported_mb": imported,
                      "edges": counts["edges"]}))


def job(n: int, m: int, iterations: int) -> int:
    """Write the tables, run the layout job in a fresh process and print what it measured."""
    with tempfile.TemporaryDirectory() as folder:
        edges = job_tables(Path(folder), n, m)
        out = subprocess.run([sys.executable, __file__, "--run-job", folder, "--iterations", str(iterations)],
                             check=True, capture_output=True, text=True).stdout
        got = json.loads(out.splitlines()[-1])
        per_edge = (got["peak_mb"] - got["imported_mb"]) * 2 ** 20 / edges
        print(f"layout job: {n} nodes, {edges} edges, {iterations} iterations: {got['seconds']:.1f} s, "
              f"peak {got['peak_mb']:.0f} MB (imported: {got['imported_mb']:.0f} MB; {per_edge:.0f} B per edge)")
        digest = hashlib.sha256(Path(folder, "layout.parquet").read_bytes()).hexdigest()
        print(f"layout.parquet sha256 {digest}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--edges", type=int, default=100_000)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--job", action="store_true", help="measure the layout job's time and peak memory")
    parser.add_argument("--run-job", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run_job:
        run_job(args.run_job, args.iterations)
        return 0
    if args.job:
        return job(args.nodes, args.edges, args.iterations)

    import igraph as ig
    import scipy.sparse as sp

    from bib2graph.networks.layout import layout

    n = args.nodes
    src, dst, weight, cluster = clustered(n, args.edges)
    graph = ig.Graph(n=n, edges=np.column_stack([src, dst]))
    adjacency = sp.csr_matrix((weight, (src, dst)), shape=(n, n))
    adjacency = adjacency + adjacency.T
    vector = np.ones((n, 2))

    def ours():
        return layout(n, src, dst, weight, cluster, iterations=args.iterations)

    def bare_fr():
        return np.asarray(graph.layout_fruchterman_reingold(weights=weight.tolist(), niter=args.iterations,
                                                            grid="grid").coords)

    def products():
        for _ in range(args.iterations):
            adjacency @ vector

    t_ours, t_fr, t_spmv = (min(ts) for ts in zip(*[(best(ours, 1), best(bare_fr, 1), best(products, 1))
                                                    for _ in range(3)]))
    first, second = ours(), ours()
    print(f"network: {n} nodes, {len(src)} edges, {len(np.unique(cluster))} clusters, "
          f"{args.iterations} iterations")
    print(f"{'what':<34}{'seconds':>10}{'ratio':>10}")
    print(f"{'layout (bib2graph)':<34}{t_ours:>10.2f}{1.0:>10.2f}")
    print(f"{'bare igraph FR, whole graph':<34}{t_fr:>10.2f}{t_ours / t_fr:>10.2f}   (ours / baseline)")
    print(f"{'sparse products, one per step':<34}{t_spmv:>10.2f}{t_ours / t_spmv:>10.2f}   (ours / baseline)")
    print(f"byte-identical across two calls: {first.tobytes() == second.tobytes()}")
    print(f"cluster separation (centre gap / radius): {separation(first, cluster):.2f}; "
          f"bare igraph FR: {separation(bare_fr(), cluster):.2f}")
    return 0 if first.tobytes() == second.tobytes() else 1


if __name__ == "__main__":
    sys.exit(main())
