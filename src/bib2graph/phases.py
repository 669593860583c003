"""The phases of a review as plain functions of files: what each workflow rule calls.

Each phase reads its input files, takes its slice of the spec as canonical JSON (the rule's
`params`), writes its outputs atomically plus a manifest, and returns its counts. Nothing here knows
of Snakemake; the workspace root is the current directory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from . import monitor
from .atomic import write_json
from .chain import chain
from .corpus import build_corpus, prisma
from .curation import read as read_decisions
from .ids import short_id
from .manifest import write_manifest
from .seed import resolve_seeds
from .sources.records import bundle_from_works
from .sources.universe import FileUniverse
from .spec import resolve_path
from .tables import CANDIDATES, SCREENING, SEEDS, WORKS, Bundle, bundle_paths, read_table, write_table


def open_source(source: dict[str, Any]):
    """The works source the spec names: a universe of files, or OpenAlex through the raw store."""
    if source["kind"] == "openalex":
        from .sources.openalex_source import OpenAlexSource

        return OpenAlexSource.open(source["openalex"])
    return FileUniverse.from_files([resolve_path(".", p) for p in source["files"]])


def source_inputs(spec: dict[str, Any]) -> list[str]:
    """The files a fetch phase reads, as paths the workflow can track."""
    return [str(resolve_path(".", p)) for p in spec["source"]["files"]]


def seed_inputs(spec: dict[str, Any]) -> list[str]:
    return [str(resolve_path(".", p)) for p in spec["seed"]["files"]]


def run_seed(params: str, out_seeds: str, out_manifest: str) -> dict[str, Any]:
    spec = json.loads(params)
    source = open_source(spec["source"])
    files = spec["seed"]["files"]
    try:
        result = resolve_seeds(source, spec["seed"], [resolve_path(".", f) for f in files], files)
    finally:
        source.close()
    write_table(result.seeds, SEEDS, out_seeds)
    counts = {"seeds": len(result.seeds), "unresolved": len(result.unresolved)}
    write_manifest(out_manifest, "seed", params, source_inputs(spec) + seed_inputs(spec), [out_seeds],
                   {**counts, "unresolved_entries": result.unresolved})
    return counts


def run_chain(params: str, seeds_path: str, out_candidates: str, out_pool: str,
              out_manifest: str) -> dict[str, Any]:
    spec = json.loads(params)
    source = open_source(spec["source"])
    seeds = read_table(seeds_path, SEEDS)
    try:
        result = chain(source, list(seeds["work_id"]), spec["chain"])
        pool = source.records(list(seeds["work_id"]) + result.admitted)
    finally:
        source.close()
    pool, candidates = _with_monitored(pool, result.candidates, len(result.rounds) + 1)
    write_table(candidates, CANDIDATES, out_candidates)
    pool.write(out_pool)
    counts = {"candidates": len(candidates), "admitted": len(result.admitted),
              "monitored": int((candidates["direction"] == "monitor").sum()),
              "pool": len(pool.works), "rounds": result.rounds}
    write_manifest(out_manifest, "chain", params, [seeds_path] + source_inputs(spec) + monitor_inputs("."),
                   [out_candidates] + bundle_paths(out_pool), counts)
    return counts


def monitor_inputs(root: str = ".") -> list[str]:
    """The pending works `b2g monitor` found, when there are any: an input of the chain phase."""
    path = Path(root) / monitor.PENDING
    return [str(monitor.PENDING)] if path.is_file() else []


def _with_monitored(pool: Bundle, candidates, round_no: int):
    """Add the works `b2g monitor` left pending to the pool, as admitted candidates of origin monitor."""
    pending = [w for w in monitor.read_pending(Path(".")) if short_id(w["id"]) not in set(pool.works["work_id"])]
    if not pending:
        return pool, candidates
    extra = bundle_from_works(pending)
    rows = pd.DataFrame([{"work_id": short_id(w["id"]), "round": round_no, "direction": "monitor",
                          "via": " ".join(w["_b2g"]["via"]), "links": len(w["_b2g"]["via"]),
                          "score": float(len(w["_b2g"]["via"])), "admitted": True} for w in pending])
    candidates = pd.concat([candidates[~candidates["work_id"].isin(rows["work_id"])], rows], ignore_index=True)
    merged = Bundle(**{name: pd.concat([getattr(pool, name), getattr(extra, name)], ignore_index=True)
                       for name in ("works", "authorships", "affiliations", "references", "terms")})
    return merged, candidates


def run_corpus(params: str, seeds_path: str, candidates_path: str, pool_dir: str, curation_path: str,
               out_dir: str) -> dict[str, Any]:
    spec = json.loads(params)
    result = build_corpus(Bundle.read(pool_dir), read_table(seeds_path, SEEDS),
                          read_table(candidates_path, CANDIDATES), read_decisions(curation_path),
                          spec["filter"])
    result.corpus.write(out_dir)
    write_table(result.screening, SCREENING, Path(out_dir) / "screening.parquet")
    write_json(Path(out_dir) / "prisma.json", prisma(read_table(seeds_path, SEEDS),
                                                     read_table(candidates_path, CANDIDATES), result.screening))
    screening = result.screening
    counts = {"pool": len(screening), "included": int(screening["included"].sum()),
              "excluded": {k: int(v) for k, v in screening["excluded_by"].value_counts().sort_index().items()},
              "accepted": int((screening["decision"] == "accept").sum()),
              "rejected": int((screening["decision"] == "reject").sum())}
    inputs = [seeds_path, candidates_path, curation_path] + bundle_paths(pool_dir)
    write_manifest(Path(out_dir) / "manifest.json", "corpus", params, inputs,
                   bundle_paths(out_dir) + [str(Path(out_dir) / n) for n in ("screening.parquet", "prisma.json")],
                   counts)
    return counts


def run_network(kind: str, params: str, corpus_dir: str, out: dict[str, str]) -> dict[str, Any]:
    from . import networks
    from .export import write_graphml

    spec = json.loads(params)
    corpus = Bundle.read(corpus_dir)
    net = networks.build(kind, corpus, spec["network"], spec["communities"])
    net.write(Path(out["metrics"]).parent)
    write_graphml(net, corpus, out["graphml"])
    counts = {"nodes": net.metrics["nodes"], "edges": net.metrics["edges"]}
    write_manifest(Path(out["metrics"]).with_name("manifest.json"), f"network:{kind}", params,
                   bundle_paths(corpus_dir), list(out.values()), counts)
    return counts


EXPORT_FILES = {
    "graphml": ["network.graphml"],
    "gexf": ["network.gexf"],
    "csv": ["nodes.csv", "edges.csv", "reading_order.csv"],
    "pajek": ["network.net"],
    "vosviewer": ["vosviewer_map.txt", "vosviewer_network.txt", "vosviewer.json"],
}


def export_names(formats: list[str]) -> list[str]:
    """The files one network's export folder holds for the chosen formats, in a fixed order."""
    return [name for fmt in EXPORT_FILES if fmt in formats for name in EXPORT_FILES[fmt]]


def run_export(kind: str, params: str, network_dir: str, corpus_dir: str, out_dir: str) -> dict[str, Any]:
    from . import export
    from .export.reading import write_reading_order
    from .networks import Network

    formats = json.loads(params)["export"]["formats"]
    net = Network.read(network_dir)
    corpus = Bundle.read(corpus_dir)
    out = Path(out_dir)
    if "graphml" in formats:
        export.write_graphml(net, corpus, out / "network.graphml")
    if "gexf" in formats:
        export.write_gexf(net, corpus, out / "network.gexf")
    if "csv" in formats:
        export.write_csv(net, out / "nodes.csv", out / "edges.csv")
        write_reading_order(net, out / "reading_order.csv")
    if "pajek" in formats:
        export.write_pajek(net, out / "network.net")
    if "vosviewer" in formats:
        export.write_vosviewer(net, out / "vosviewer_map.txt", out / "vosviewer_network.txt", out / "vosviewer.json")
    return {"formats": formats, "files": export_names(formats)}


def run_report(params: str, inputs: dict[str, Any], out_html: str) -> dict[str, Any]:
    from .report import write_report

    spec = json.loads(params)
    manifests = {name: json.loads(Path(inputs[name]).read_text(encoding="utf-8"))
                 for name in ("seeds", "chain", "corpus")}
    metrics = [json.loads(Path(p).read_text(encoding="utf-8")) for p in inputs["metrics"]]
    screening = read_table(inputs["screening"], SCREENING)
    works = read_table(inputs["works"], WORKS)
    from .export.reading import PAPER_KINDS, reading_order
    from .networks.schema import NODES

    prisma_counts = json.loads(Path(inputs["prisma"]).read_text(encoding="utf-8"))
    reading = {m["kind"]: reading_order(m["kind"], read_table(Path(p).with_name("nodes.parquet"), NODES))
               for p, m in zip(inputs["metrics"], metrics) if m["kind"] in PAPER_KINDS}
    write_report(out_html, spec, manifests, screening, works, metrics, prisma_counts, reading)
    return {"networks": len(metrics)}

