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
"""

from __future__ import annotations

import argparse
import sys
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--edges", type=int, default=100_000)
    parser.add_argument("--iterations", type=int, default=200)
    args = parser.parse_args(argv)

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
