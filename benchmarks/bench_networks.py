"""Network build at 10k, 50k and 100k works with heavy-tailed, seeded synthetic corpora.

For each size and kind it prints the pair-counting time (the kind's builder: incidence, nodes, counted and
thresholded edges), the full build time (counting, normalisation, communities with one run, metrics,
evidence, typed tables) and the peak memory of a child process doing only that, and, measured in the same
run on the same data, the ratio of coupling and co-citation counting to a bare `scipy.sparse` product
(factorised IDs, ``A·Aᵀ`` or ``Aᵀ·A``, ``triu``, ``tocoo``) and (at 10k, where it finishes) to a
pure-Python pair count. Counting and the bare product are each the best of five interleaved runs (the
machine is shared and noisy). Kinds use their defaults; co-citation runs twice: with ``min_occurrences`` 1,
so that it counts exactly the product the bare baseline computes, and with its default 2 (no ratio). The
evidence column gives the rows of the complete evidence table and whether it was built (above 5M rows it is
skipped, and metrics say so).

Below each row, the build's seconds per stage (``networks.build(timings=…)``, with the spec's default
communities and metrics, so stability and betweenness cost what a workflow pays) and, measured in the same
child on the network just built, the floors: one igraph ``community_leiden`` call (modularity, igraph's
default 2 passes) on the graph as built, PRPACK PageRank, and a pyarrow write of the edge table
(source, target, count, weight), beside the build's clustering, pagerank and Parquet write.

    python benchmarks/bench_networks.py                 # 10k, 50k, 100k
    python benchmarks/bench_networks.py --sizes 10000   # one size
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

#: benchmark rows: name → (kind, parameters beyond the kind's defaults). "cocitation" sets min_occurrences
#: 1 so that it counts exactly the bare product Aᵀ·A (the ratio is like for like); "cocitation_default"
#: is the kind's default (min_occurrences 2), the network a workflow builds.
ROWS = {
    "coupling": ("coupling", {}),
    "cocitation": ("cocitation", {"min_occurrences": 1}),
    "cocitation_default": ("cocitation", {}),
    "citation": ("citation", {}),
    "coauthorship": ("coauthorship", {}),
    "institutions": ("institutions", {}),
    "keywords": ("keywords", {}),
}
#: rows whose counting computes the same product as the bare baseline
LIKE_FOR_LIKE = ("coupling", "cocitation")


def synthetic_corpus(n_works: int, seed: int = 7):
    """A corpus whose references follow p ∝ 1/rank^0.6 over 10·n cited works (as real ones are skewed)."""
    from bib2graph.tables import Bundle

    rng = np.random.default_rng(seed)
    ids = np.array([f"W{i}" for i in range(1, n_works + 1)])
    n_refs = np.clip(rng.poisson(25, n_works), 1, 200)
    pool = 10 * n_works
    weights = 1.0 / np.arange(1, pool + 1) ** 0.6
    weights /= weights.sum()
    ref_rows = rng.choice(pool, size=int(n_refs.sum()), p=weights)
    # a tenth of the cited pool is the corpus itself, so citation edges exist
    ref_ids = np.where(ref_rows < n_works, np.char.add("W", (ref_rows + 1).astype(str)),
                       np.char.add("W9", ref_rows.astype(str)))
    refs = pd.DataFrame({"work_id": np.repeat(ids, n_refs), "referenced_id": ref_ids}).drop_duplicates()
    n_auth = np.clip(rng.poisson(4, n_works), 1, 30)
    author = rng.zipf(1.6, int(n_auth.sum())) % (2 * n_works)
    auth = pd.DataFrame({"work_id": np.repeat(ids, n_auth),
                         "position": np.concatenate([np.arange(k) for k in n_auth]),
                         "author_id": np.char.add("A", author.astype(str)), "author_name": "x",
                         "author_position": "middle"})
    auth = auth.drop_duplicates(["work_id", "author_id"])
    aff = auth[["work_id", "position"]].copy()
    aff["institution_id"] = np.char.add("I", (rng.zipf(1.4, len(aff)) % 20000).astype(str))
    aff["institution_name"], aff["country_code"] = "x", None
    n_terms = 6
    terms = pd.DataFrame({"work_id": np.repeat(ids, n_terms),
                          "term_id": np.char.add("keywords/k", (rng.zipf(1.3, n_works * n_terms) % 5000).astype(str))})
    terms = terms.drop_duplicates()
    terms["field"], terms["term"], terms["score"] = "keywords", terms["term_id"], 0.5
    works = pd.DataFrame({"work_id": ids, "doi": None, "title": ids, "year": rng.integers(1990, 2026, n_works),
                          "publication_date": None, "type": "article", "language": "en", "venue_id": None,
                          "venue": None, "cited_by_count": 0, "n_references": n_refs, "is_retracted": False,
                          "abstract": None, "updated_date": None})
    return Bundle(works=works, authorships=auth, affiliations=aff, references=refs,
                  terms=terms[["work_id", "field", "term_id", "term", "score"]])


def bare_product(refs: pd.DataFrame, kind: str) -> float:
    """Seconds for the bare sparse product that coupling (A·Aᵀ) or co-citation (Aᵀ·A) needs."""
    start = time.perf_counter()
    w = pd.factorize(refs["work_id"])[0]
    r = pd.factorize(refs["referenced_id"])[0]
    a = sp.csr_matrix((np.ones(len(w), np.int32), (w, r)))
    product = a @ a.T if kind == "coupling" else a.T @ a
    sp.triu(product, k=1).tocoo()
    return time.perf_counter() - start


def pure_python(refs: pd.DataFrame, kind: str) -> float:
    """Seconds for an inverted index and a Counter over itertools.combinations."""
    start = time.perf_counter()
    groups = defaultdict(set)
    key, member = ("referenced_id", "work_id") if kind == "coupling" else ("work_id", "referenced_id")
    for g, m in zip(refs[key], refs[member]):
        groups[g].add(m)
    counts = Counter()
    for members in groups.values():
        counts.update(itertools.combinations(sorted(members), 2))
    return time.perf_counter() - start


def floors(net) -> dict[str, float]:
    """Seconds of the floors, on the network just built: one Leiden call, PRPACK PageRank, a pyarrow write of
    the edges; and of the build's own write of its tables, for comparison."""
    import tempfile

    import pyarrow as pa
    import pyarrow.parquet as pq
    from threadpoolctl import threadpool_limits

    from bib2graph.networks.communities import seeded, undirected
    from bib2graph.networks.graph import igraph_from_codes

    ids = pd.Index(net.nodes["node_id"])
    i, j = ids.get_indexer(net.edges["source"]), ids.get_indexer(net.edges["target"])
    w = net.edges["weight"].to_numpy(dtype=float)
    graph = undirected(len(ids), i, j, w, net.directed)
    out = {}
    start = time.perf_counter()
    with seeded(42):
        graph.community_leiden(objective_function="modularity", weights="weight")
    out["leiden_call"] = time.perf_counter() - start
    target = igraph_from_codes(len(ids), i, j, True, w) if net.directed else graph   # PageRank keeps direction
    with threadpool_limits(1, user_api="openmp"):      # as the build calls it (networks.metrics)
        start = time.perf_counter()
        target.pagerank(weights="weight", directed=net.directed, damping=0.85, implementation="prpack")
        out["pagerank_prpack"] = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        table = pa.table({"source": pa.array(net.edges["source"].to_numpy(dtype=object), pa.string()),
                          "target": pa.array(net.edges["target"].to_numpy(dtype=object), pa.string()),
                          "count": net.edges["count"].to_numpy(dtype=float), "weight": w})
        start = time.perf_counter()
        pq.write_table(table, f"{tmp}/edges.parquet")
        out["pyarrow_write"] = time.perf_counter() - start
        start = time.perf_counter()
        net.write(Path(tmp) / "net")
        out["build_write"] = time.perf_counter() - start
    return out


def _stages(r: dict) -> str:
    """One line: the build's stages (seconds) and the floors beside the stages they bound."""
    s, f = r["stages"], r["floors"]
    clustering = s.get("clustering", 0.0)
    shown = ", ".join(f"{k} {v:.2f}" for k, v in s.items() if v >= 0.005)
    stab = r["stability"]
    return (f"{'':>7}   stages: {shown}\n"
            f"{'':>7}   floors: leiden call {f['leiden_call']:.2f} (clustering ×{clustering / max(f['leiden_call'], 1e-9):.1f}; "
            f"stability {stab['runs']} runs {s.get('stability', 0.0):.2f}), prpack {f['pagerank_prpack']:.2f} "
            f"(pagerank ×{s.get('pagerank', 0.0) / max(f['pagerank_prpack'], 1e-9):.1f}), pyarrow write "
            f"{f['pyarrow_write']:.2f} (tables written {f['build_write']:.2f}, ×{f['build_write'] / max(f['pyarrow_write'], 1e-9):.1f}); "
            f"betweenness {r['betweenness']['method']}"
            + (f" from {r['betweenness']['sources']} sources" if r["betweenness"].get("sources") else ""))


def child(size: int, row: str, python_baseline: bool, repeats: int = 5) -> dict:
    from bib2graph import networks
    from bib2graph.networks.builders import BUILDERS

    corpus = synthetic_corpus(size)
    kind, extra = ROWS[row]
    params = networks.resolve_params(kind, extra)
    product = row in LIKE_FOR_LIKE
    counting, bare = [], []
    for _ in range(repeats if product else 1):
        start = time.perf_counter()
        raw = BUILDERS[kind](corpus, params)
        counting.append(time.perf_counter() - start)
        raw_pairs = int(len(raw.count))
        del raw
        if product:
            bare.append(bare_product(corpus.references, kind))
    stages: dict[str, float] = {}
    start = time.perf_counter()
    net = networks.build(kind, corpus, extra, {}, timings=stages)   # extra: resolved params add keys citation refuses
    full = time.perf_counter() - start
    evidence = net.metrics["evidence"]
    out = {"size": size, "row": row, "kind": kind, "parameters": params,
           "nodes": net.metrics["nodes"], "edges": net.metrics["edges"], "counting_s": min(counting),
           "build_s": full, "raw_pairs": raw_pairs,
           "evidence_rows": evidence["rows"], "evidence_complete": evidence["complete"],
           "betweenness": net.metrics["betweenness"], "stability": net.metrics["stability"],
           "stages": stages, "floors": floors(net)}
    if product:
        out["bare_s"] = min(bare)
        if python_baseline:
            out["python_s"] = pure_python(corpus.references, kind)
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _rows(n: int) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.0f}k" if n >= 1e3 else str(n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 100_000])
    parser.add_argument("--kinds", nargs="+", default=list(ROWS), choices=list(ROWS), metavar="ROW",
                        help=f"rows to run, among {', '.join(ROWS)}")
    parser.add_argument("--child", nargs=3, metavar=("SIZE", "KIND", "PY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(int(args.child[0]), args.child[1], args.child[2] == "1")))
        return
    print(f"{'works':>7} {'kind':<18} {'nodes':>8} {'edges':>10} {'count s':>8} {'build s':>8} "
          f"{'peak MB':>8} {'bare s':>7} {'×bare':>6} {'python s':>9} {'×python':>8} {'evidence':>14}", flush=True)
    worst, failed = 0.0, 0
    for size in args.sizes:
        for kind in args.kinds:
            proc = subprocess.run([sys.executable, __file__, "--child", str(size), kind,
                                   "1" if size <= 10_000 else "0"], capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"{size:>7} {kind:<18} failed: {proc.stderr.strip().splitlines()[-1:]}", flush=True)
                failed += 1
                continue
            r = json.loads(proc.stdout)
            if "bare_s" in r:
                worst = max(worst, r["counting_s"] / r["bare_s"])
            bare = f"{r['bare_s']:7.2f} {r['counting_s'] / r['bare_s']:6.2f}" if "bare_s" in r else f"{'':7} {'':6}"
            py = (f"{r['python_s']:9.2f} {r['counting_s'] / r['python_s']:8.3f}" if "python_s" in r
                  else f"{'':9} {'':8}")
            evidence = f"{_rows(r['evidence_rows'])} {'built' if r['evidence_complete'] else 'skipped'}"
            print(f"{size:>7} {kind:<18} {r['nodes']:>8} {r['edges']:>10} {r['counting_s']:8.2f} "
                  f"{r['build_s']:8.2f} {r['peak_mb']:8.0f} {bare} {py} {evidence:>14}", flush=True)
            print(_stages(r), flush=True)
    if worst:
        print(f"worst counting / bare product ratio: {worst:.2f} (acceptance: at most 3)")
    if failed:
        sys.exit(f"{failed} row(s) failed")   # run_all.py, and so `make bench`, see it


if __name__ == "__main__":
    main()
