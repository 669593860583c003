"""The map at scale: a synthetic network of 10k nodes and 100k edges (40 planted clusters, seeded).

Prints three times, each with a baseline measured in the same run on the same data, as a ratio:

- layout: `bib2graph.networks.layout.layout` (what the layout job runs: cluster-aware start, igraph's
  Fruchterman-Reingold, packed components) against igraph's bare Fruchterman-Reingold on the same graph
  and as many iterations;
- API: `GET /api/networks/coupling?edges=N` on a real `b2g gui` over loopback (best of three) against
  reading the same Parquet files with pyarrow and serialising their rows with `json.dumps`;
- first frame: headless Chromium (Debian's, through Playwright, software WebGL), from navigation start
  to sigma's first drawn frame of the whole network, against the load of a static file of the same
  server (a page with nothing to draw); both on the page's own clock.

    python benchmarks/bench_gui.py                       # 10k nodes, 100k edges
    python benchmarks/bench_gui.py --nodes 2000 --edges 20000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from bench_layout import best  # noqa: E402  (this folder is on the path: the script's own)

KIND = "coupling"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


def synthetic_network(n_nodes: int, n_edges: int, clusters: int = 40, seed: int = 7):
    """Nodes in planted clusters and edges, 85% inside a cluster, weights heavy-tailed; no duplicates."""
    rng = np.random.default_rng(seed)
    cluster = np.sort(rng.integers(0, clusters, n_nodes))
    members = [np.flatnonzero(cluster == c) for c in range(clusters)]
    pairs: set[tuple[int, int]] = set()
    while len(pairs) < n_edges:
        m = n_edges - len(pairs)
        a = rng.integers(0, n_nodes, m)
        inside = rng.random(m) < 0.85
        b = np.where(inside, [rng.choice(members[cluster[x]]) for x in a], rng.integers(0, n_nodes, m))
        for x, y in zip(a.tolist(), b.tolist()):
            if x != y:
                pairs.add((min(x, y), max(x, y)))
    edges = np.array(sorted(pairs)[:n_edges])
    ids = np.array([f"W{i + 1}" for i in range(n_nodes)])
    weight = np.round(rng.pareto(2.0, len(edges)) + 1, 3)
    degree = np.bincount(edges.ravel(), minlength=n_nodes)
    strength = np.bincount(edges.ravel(), weights=np.repeat(weight, 2), minlength=n_nodes)
    years = rng.integers(1990, 2025, n_nodes)
    nodes = pd.DataFrame({
        "node_id": ids, "label": [f"Synthetic work {i + 1} of cluster {c + 1}" for i, c in enumerate(cluster)],
        "occurrences": degree, "year": years, "mean_year": years.astype(float), "doi": None, "in_corpus": True,
        "degree": degree, "strength": strength, "link_strength": strength, "pagerank": strength / strength.sum(),
        "betweenness": 0.0, "eigenvector": 0.0, "cluster": cluster + 1})
    edge_table = pd.DataFrame({"source": ids[edges[:, 0]], "target": ids[edges[:, 1]], "count": weight,
                               "weight": weight})
    return nodes, edge_table


def make_workspace(root: Path, nodes: pd.DataFrame, edges: pd.DataFrame) -> Path:
    """A workspace whose spec has one network, its tables written directly (no workflow run)."""
    import yaml

    from bib2graph.networks.schema import EDGES, NODES
    from bib2graph.tables import write_table

    subprocess.run([sys.executable, "-m", "bib2graph", "init", str(root), "--json"], check=True,
                   capture_output=True, stdin=subprocess.DEVNULL)
    spec_path = root / "config/research.yaml"
    spec = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    spec["networks"] = {KIND: spec["networks"][KIND]}
    spec_path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    folder = root / f"results/networks/{KIND}"
    folder.mkdir(parents=True)
    write_table(nodes, NODES, folder / "nodes.parquet")
    write_table(edges, EDGES, folder / "edges.parquet")
    sizes = nodes["cluster"].value_counts()
    metrics = {"kind": KIND, "directed": False, "nodes": len(nodes), "edges": len(edges), "n_clusters": len(sizes),
               "definition": "synthetic (benchmarks/bench_gui.py)",
               "clusters": [{"cluster": int(c), "size": int(s), "label": f"cluster {c}"} for c, s in sizes.items()]}
    (folder / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    return folder


def time_layout(root: Path, folder: Path) -> tuple[float, float]:
    """The layout of the network (written where the layout job writes it), and igraph's bare FR."""
    import igraph

    from bib2graph.networks.layout import layout

    nodes = pd.read_parquet(folder / "nodes.parquet")
    edges = pd.read_parquet(folder / "edges.parquet")
    ids = pd.Index(nodes["node_id"])
    src, dst = ids.get_indexer(edges["source"]), ids.get_indexer(edges["target"])
    start = time.perf_counter()
    xy = layout(len(ids), src, dst, edges["weight"].to_numpy(), nodes["cluster"].to_numpy(dtype="int64"))
    layout_s = time.perf_counter() - start
    out = root / f"results/layouts/{KIND}"
    out.mkdir(parents=True)
    pd.DataFrame({"node_id": nodes["node_id"], "x": xy[:, 0], "y": xy[:, 1]}).to_parquet(out / "layout.parquet",
                                                                                          index=False)
    graph = igraph.Graph(n=len(ids), edges=list(zip(src.tolist(), dst.tolist())))
    start = time.perf_counter()
    graph.layout_fruchterman_reingold(weights=edges["weight"].tolist(), niter=200)
    bare_s = time.perf_counter() - start
    return layout_s, bare_s


def read_as_json(folder: Path) -> int:
    """What any JSON API over these tables must do at least: read them, and serialise their rows."""
    import pyarrow.parquet as pq

    nodes = pq.read_table(folder / "nodes.parquet").to_pylist()
    edges = pq.read_table(folder / "edges.parquet", columns=["source", "target", "weight", "count"]).to_pylist()
    return len(json.dumps({"nodes": nodes, "edges": edges}))


def start_gui(root: Path, log: Path) -> tuple[subprocess.Popen, dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("B2G_")}
    proc = subprocess.Popen([sys.executable, "-m", "bib2graph", "gui", "--json", "--no-browser", "--port", "0",
                             "--workspace", str(root)], stdout=subprocess.PIPE, stderr=log.open("w"),
                            stdin=subprocess.DEVNULL, text=True, env=env)
    line = proc.stdout.readline()
    if not line:
        raise SystemExit(f"b2g gui did not start: {log.read_text()[-2000:]}")
    return proc, json.loads(line)["data"]


def time_api(url: str, folder: Path, n_edges: int) -> tuple[float, float, int]:
    import httpx

    base, token = url.split("/?token=")
    headers = {"Authorization": f"Bearer {token}"}
    sizes = []

    def fetch():
        response = httpx.get(f"{base}/api/networks/{KIND}", params={"edges": n_edges}, headers=headers, timeout=300)
        response.raise_for_status()
        sizes.append(len(response.content))

    api_s = best(fetch)
    read_s = best(lambda: read_as_json(folder))
    return api_s, read_s, sizes[-1]


def time_first_frame(url: str) -> tuple[float, float, dict]:
    """Seconds from navigation start to the map's first drawn frame (sigma's first `afterRender`), and
    to the `load` event of a static file of the same server; both on the page's own clock, best of two."""
    from playwright.sync_api import sync_playwright

    base, token = url.split("/?token=")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            blanks, frames = [], []
            for _ in range(2):
                page.goto(f"{base}/assets/index.css?token={token}", wait_until="load")
                blanks.append(page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd"))
            for _ in range(2):
                page.goto("about:blank")
                page.goto(f"{url}#map?kind={KIND}")
                page.wait_for_function("() => window.__b2g && window.__b2g.ready", timeout=300_000)
                shown = page.evaluate("() => ({nodes: window.__b2g.graph.order, edges: window.__b2g.graph.size, "
                                      "firstFrameMs: window.__b2g.firstFrameAt, dataMs: window.__b2g.loadedAt})")
                frames.append(shown["firstFrameMs"])
        finally:
            browser.close()
    return min(frames) / 1000, min(blanks) / 1000, shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--edges", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-gui-") as tmp:
        root = Path(tmp) / "review"
        nodes, edges = synthetic_network(args.nodes, args.edges)
        folder = make_workspace(root, nodes, edges)
        layout_s, bare_s = time_layout(root, folder)
        print(f"network: {len(nodes):,} nodes, {len(edges):,} edges, {nodes['cluster'].nunique()} clusters")
        print(f"{'measure':<32} {'time s':>8} {'baseline s':>11} {'ratio':>8}  baseline")
        print(f"{'layout (fr, seeded)':<32} {layout_s:8.2f} {bare_s:11.3f} {layout_s / bare_s:8.2f}  "
              "igraph's bare Fruchterman-Reingold, 200 iterations", flush=True)
        proc, server = start_gui(root, Path(tmp) / "gui.stderr")
        try:
            api_s, read_s, size = time_api(server["url"], folder, len(edges))
            print(f"{'API /api/networks/' + KIND:<32} {api_s:8.2f} {read_s:11.3f} {api_s / read_s:8.2f}  "
                  f"pyarrow read + json.dumps of the rows ({size / 1e6:.1f} MB of JSON served)", flush=True)
            frame_s, blank_s, shown = time_first_frame(server["url"])
            print(f"{'first drawn frame (Chromium)':<32} {frame_s:8.2f} {blank_s:11.3f} {frame_s / blank_s:8.2f}  "
                  f"load of a static file; drew {shown['nodes']:,} nodes, {shown['edges']:,} edges "
                  f"(graph built in the page after {shown['dataMs'] / 1000:.2f} s)", flush=True)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)


if __name__ == "__main__":
    main()
