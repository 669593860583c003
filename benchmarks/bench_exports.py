"""Export writers on synthetic coupling and co-citation networks, each against a pyarrow write of the same
edge table measured in the same run.

The network is made from the synthetic corpus of bench_networks.py: the kind's builder counts the edges
(the real ones); node measures and clusters are cheap stand-ins (degree, strength, clusters by code), since
the writers' cost depends on the tables' sizes, not on what Leiden found. It is written once as the
network job writes it; then each row runs in its own process, which reads the network and writes one
format, and prints its seconds and peak memory (ru_maxrss, the network's tables included; `base MB` is
the peak after reading them). Floors: `parquet` (pq.write_table of the edge table) and `arrow csv`
(pyarrow.csv.write_csv of it). `graphml full` is the network job's file (every edge); `export job` is the
whole export rule (all formats, the spec's default `export.max_edges`, layout coordinates). With `--old`,
the per-row writers the column-wise ones replaced (tests/unit/export_reference.py) run too.

    python benchmarks/bench_exports.py                    # 2,000 and 20,000 works
    python benchmarks/bench_exports.py --sizes 2000 --old # small, with the per-row writers beside
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

KINDS = {"coupling": {}, "cocitation": {}}
ROWS = ["parquet", "arrow csv", "csv", "pajek", "vosviewer", "graphml full", "gexf", "export job"]
OLD_ROWS = ["old csv", "old pajek", "old vosviewer", "old graphml full", "old gexf"]


def make_network(size: int, kind: str, folder: Path) -> dict:
    """Build the kind's edges on the synthetic corpus and write network, corpus and layout as the jobs do."""
    from bench_networks import synthetic_corpus

    from bib2graph import networks
    from bib2graph.networks import Network
    from bib2graph.networks.builders import BUILDERS
    from bib2graph.networks.coding import coded_frame
    from bib2graph.networks.schema import EDGES, LAYOUT, NODES
    from bib2graph.tables import conform, write_table

    corpus = synthetic_corpus(size)
    params = networks.resolve_params(kind, KINDS[kind])
    raw = BUILDERS[kind](corpus, params)
    n = len(raw.nodes)
    i, j = np.asarray(raw.source), np.asarray(raw.target)
    count = np.asarray(raw.count, dtype=float)
    degree = np.bincount(i, minlength=n) + np.bincount(j, minlength=n)
    strength = np.bincount(i, count, minlength=n) + np.bincount(j, count, minlength=n)
    ids = raw.nodes["node_id"].reset_index(drop=True)
    nodes = pd.DataFrame({"node_id": ids, "label": ids, "occurrences": raw.nodes["occurrences"].to_numpy(),
                          "year": 2000 + np.arange(n) % 25, "mean_year": (2000 + np.arange(n) % 25).astype(float),
                          "doi": None, "in_corpus": ids.str.len() < 7, "degree": degree, "strength": strength,
                          "link_strength": strength, "pagerank": np.full(n, 1.0 / max(n, 1)),
                          "betweenness": np.zeros(n), "eigenvector": strength / max(strength.max(), 1),
                          "cluster": 1 + np.arange(n) % 50})
    edges = coded_frame({"source": (ids, i), "target": (ids, j)}, {"count": count, "weight": count})
    net = Network(kind=kind, directed=False, nodes=conform(nodes, NODES), edges=conform(edges, EDGES),
                  evidence=None, metrics={"kind": kind, "directed": False, "parameters": params,
                                          "definition": kind, "clusters": [], "nodes": n, "edges": len(edges)})
    net.write(folder / "net")
    corpus.write(folder / "corpus")
    rng = np.random.default_rng(1)
    write_table(pd.DataFrame({"node_id": net.nodes["node_id"], "x": rng.random(n), "y": rng.random(n)}), LAYOUT,
                folder / "layout.parquet")
    return {"nodes": n, "edges": len(edges)}


def child(folder: Path, row: str) -> dict:
    """Read the network, then time one writer; peak memory is the process's."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from bib2graph import export
    from bib2graph.networks import Network
    from bib2graph.tables import Bundle

    net = Network.read(folder / "net", evidence=False)
    corpus = Bundle.read(folder / "corpus") if row in ("graphml full", "gexf", "old graphml full", "old gexf") else None
    xy = pd.read_parquet(folder / "layout.parquet")[["x", "y"]].to_numpy()
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out = Path(tempfile.mkdtemp(dir=folder))
    start = time.perf_counter()
    if row == "parquet":
        pq.write_table(pa.Table.from_pandas(net.edges, preserve_index=False), out / "e.parquet", compression="zstd")
    elif row == "arrow csv":
        pacsv.write_csv(pa.Table.from_pandas(net.edges, preserve_index=False), out / "e.csv")
    elif row == "csv":
        export.write_csv(net, out / "n.csv", out / "e.csv")
    elif row == "pajek":
        export.write_pajek(net, out / "n.net")
    elif row == "vosviewer":
        export.write_vosviewer(net, out / "m.txt", out / "n.txt", out / "v.json", xy)
    elif row == "graphml full":
        export.write_graphml(net, corpus, out / "n.graphml")
    elif row == "gexf":   # on the reduction the export job would write
        from bib2graph.export.reduction import reduced, visual_edges
        from bib2graph.spec import schema_defaults

        limit = schema_defaults("export")["max_edges"]
        keep, _ = visual_edges(net.edges, net.nodes["node_id"], limit, None)
        export.write_gexf(reduced(net, keep), corpus, out / "n.gexf", xy)
    elif row == "export job":
        from bib2graph.phases import run_export
        from bib2graph.skips import Skips
        from bib2graph.spec import schema_defaults

        spec = {"export": {**schema_defaults("export"), "formats": ["graphml", "gexf", "csv", "pajek", "vosviewer"]}}
        inp = {"metrics": str(folder / "net/metrics.json"), "corpus": [str(folder / "corpus/works.parquet")],
               "layout": str(folder / "layout.parquet")}
        counts = run_export(spec, net.kind, inp, {"manifest": str(out / "manifest.json")}, Skips())
        row = f"export job (visual edges {counts['reduction']['kept']})"
    elif row.startswith("old "):
        sys.path.insert(0, str(ROOT / "tests/unit"))
        import export_reference as old

        what = row[4:]
        if what == "csv":
            old.write_csv(net, out / "n.csv", out / "e.csv")
        elif what == "pajek":
            old.write_pajek(net, out / "n.net")
        elif what == "vosviewer":
            old.write_vosviewer(net, out / "m.txt", out / "n.txt", out / "v.json", xy)
        elif what == "gexf":   # the whole network, as `gexf` runs on it when below export.max_edges
            old.write_gexf(net, corpus, out / "n.gexf", xy)
        else:
            old.write_graphml(net, corpus, out / "n.graphml")
    seconds = time.perf_counter() - start
    size = sum(p.stat().st_size for p in out.iterdir())
    return {"row": row, "seconds": seconds, "base_mb": base, "mb": size / 1e6,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20_000])
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    parser.add_argument("--rows", nargs="+", default=ROWS, choices=ROWS + OLD_ROWS, metavar="ROW")
    parser.add_argument("--old", action="store_true", help="also run the per-row writers they replaced")
    parser.add_argument("--child", nargs=2, metavar=("FOLDER", "ROW"), help=argparse.SUPPRESS)
    parser.add_argument("--make", nargs=3, metavar=("FOLDER", "SIZE", "KIND"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child[0]), args.child[1])))
        return
    if args.make:   # in its own process, so that this one stays small: a child inherits its parent's peak
        print(json.dumps(make_network(int(args.make[1]), args.make[2], Path(args.make[0]))))
        return
    rows = args.rows + (OLD_ROWS if args.old else [])
    failed = 0
    print(f"{'works':>7} {'kind':<11} {'nodes':>8} {'edges':>10} {'row':<34} {'s':>8} {'×parquet':>9} "
          f"{'file MB':>8} {'base MB':>8} {'peak MB':>8}", flush=True)
    for size in args.sizes:
        for kind in args.kinds:
            with tempfile.TemporaryDirectory() as tmp:
                made = subprocess.run([sys.executable, __file__, "--make", tmp, str(size), kind], capture_output=True,
                                      text=True, check=True)
                shape = json.loads(made.stdout)
                floor = None
                for row in rows:
                    proc = subprocess.run([sys.executable, __file__, "--child", tmp, row], capture_output=True,
                                          text=True)
                    if proc.returncode != 0:
                        print(f"{size:>7} {kind:<11} {row}: failed: {proc.stderr.strip().splitlines()[-1:]}",
                              flush=True)
                        failed += 1
                        continue
                    r = json.loads(proc.stdout)
                    floor = r["seconds"] if row == "parquet" else floor
                    ratio = f"{r['seconds'] / floor:9.1f}" if floor else f"{'':9}"
                    print(f"{size:>7} {kind:<11} {shape['nodes']:>8} {shape['edges']:>10} {r['row']:<34} "
                          f"{r['seconds']:8.2f} {ratio} {r['mb']:8.1f} {r['base_mb']:8.0f} {r['peak_mb']:8.0f}",
                          flush=True)
    if failed:
        sys.exit(f"{failed} row(s) failed")


if __name__ == "__main__":
    main()
