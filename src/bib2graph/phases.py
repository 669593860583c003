"""The jobs of a review as plain functions of files: what each workflow rule calls.

`run` is the one entry point. It checks the job's params (`checks`), runs the phase on the named input
and output paths the registry declares, and writes the job's manifest: what made the outputs, from
which inputs, their hashes, the counts and every input record a reader skipped. Nothing here knows
of Snakemake; the workspace root is the current directory.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from . import checks, monitor
from .atomic import write_json
from .chain import chain
from .corpus import people_screening, prisma, screen, screen_columns
from .curation import read as read_decisions
from .ids import short_id
from .manifest import write_manifest
from .registry import flat
from .seed import resolve_seeds
from .skips import Skips
from .sources.records import bundle_from_works
from .sources.universe import FileUniverse
from .tables import (AUTHORSHIPS, BUNDLE_TABLES, CANDIDATES, CITED, ORIGINS, SCREENING, SEEDS, SOURCE_REFS, TERMS,
                     WORKS, Bundle, filter_bundle, read_arrow, read_columns, read_filtered, read_rows, read_table,
                     write_table)

Named = dict[str, Any]


def open_source(source: dict[str, Any], universe: list[str], skips: Skips):
    """The works source the spec names: the universe the `sources` job read from the files (its tables
    `universe`), or OpenAlex through the raw store."""
    if source["kind"] == "openalex":
        from .sources.openalex_source import OpenAlexSource

        return OpenAlexSource.open(source["openalex"], skips=skips)
    cited = next(p for p in universe if p.endswith("/cited.parquet"))
    return FileUniverse.read(_folder(universe), cited)


def run_snapshot_part(spec: dict, kind: str, inp: Named, out: Named, skips: Skips) -> dict[str, Any]:
    """The selected works of one partition of the OpenAlex snapshot, as bundle tables and origins."""
    from .sources.snapshot import read_partition

    path = inp["partition"][0]
    return {"partition": kind, **read_partition(path, path, spec["source"]["snapshot"], skips, _folder(out["tables"]))}


def _gather_snapshot(inp: Named, out: Named) -> dict[str, Any]:
    """The partitions' tables gathered into the universe, one table at a time; a work in several keeps
    its latest record."""
    from .sources.snapshot import gather

    folders = sorted({Path(p).parent for p in inp.get("parts", [])})
    target = {**{name: Path(_folder(out["tables"])) / f"{name}.parquet" for name in BUNDLE_TABLES},
              "cited": out["cited"], "origins": out["origins"]}
    schemas = {**BUNDLE_TABLES, "cited": SOURCE_REFS, "origins": ORIGINS}
    return gather([(folder.name, folder) for folder in folders],
                  lambda name, table: write_table(table, schemas[name], target[name]))


def run_sources(spec: dict, kind: None, inp: Named, out: Named, skips: Skips) -> dict[str, Any]:
    """Read every source file once, merge the works several hold, resolve cited references (a
    snapshot: gather its partitions)."""
    if spec["source"].get("kind") == "snapshot":   # a files source's params name no kind
        return _gather_snapshot(inp, out)
    from .progress import counting
    from .sources.ingest import import_files, ingest, read_source_folding, table_writer

    source = spec["source"]
    fold = read_source_folding(inp["source_thesaurus"][0]) if inp.get("source_thesaurus") else None
    args = ([Path(p) for p in inp["sources"]], source["files"], [source["formats"].get(name) for name in source["files"]],
            skips)
    if source["resolve"] != "openalex":   # tables written as they are done: a field's import is never all in memory
        _freed_pages_returned()
        paths = {**{name: _folder(out["tables"]) / f"{name}.parquet" for name in BUNDLE_TABLES},
                 "cited": Path(out["cited"]), "origins": Path(out["origins"])}
        with counting("reading source files") as seen, tempfile.TemporaryDirectory(prefix="b2g-sources-") as tmp:
            return import_files(*args, on_record=seen, fold=fold, write=table_writer(paths), scratch=Path(tmp))
    from .sources.ingest import resolve_with_openalex   # DOIs of cited works → OpenAlex IDs, through the raw store
    from .sources.openalex_source import OpenAlexSource

    with counting("reading source files") as seen:
        found = ingest(*args, on_record=seen, fold=fold)
    api = OpenAlexSource.open(source["openalex"], skips=skips)
    try:
        found = resolve_with_openalex(found, api.ids_for_dois, api.ids_for_pmids)
    finally:
        api.close()
    found.bundle.write(_folder(out["tables"]))
    write_table(found.cited, SOURCE_REFS, out["cited"])
    write_table(found.origins, ORIGINS, out["origins"])
    return found.counts


def _folder(paths: list[str]) -> Path:
    return Path(paths[0]).parent


def run_seed(spec: dict, kind: None, inp: Named, out: Named, skips: Skips) -> dict[str, Any]:
    source = open_source(spec["source"], inp["universe"], skips)
    try:
        result = resolve_seeds(source, spec["seed"], [Path(p) for p in inp["seed_files"]], spec["seed"]["files"],
                               skips=skips)
    finally:
        source.close()
    write_table(result.seeds, SEEDS, out["seeds"])
    return {"seeds": len(result.seeds), "unresolved": len(result.unresolved),
            "unresolved_entries": result.unresolved}


def _freed_pages_returned() -> None:
    """Arrow's buffers from malloc, which gives freed pages back (release_unused): mimalloc, Arrow's
    default, keeps them, so a job's peak is every transient buffer at once (the sources job: a row
    group's pieces beside the row group they were joined into, 200 MB at 100k records; the chain job:
    each table's decoded pages, 300 MB)."""
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())


def run_chain(spec: dict, kind: None, inp: Named, out: Named, skips: Skips) -> dict[str, Any]:
    _freed_pages_returned()
    source = open_source(spec["source"], inp["universe"], skips)
    seeds = read_table(inp["seeds"], SEEDS)
    try:
        result = chain(source, list(seeds["work_id"]), spec["chain"])
        pooled = list(seeds["work_id"]) + result.admitted
        # every work of a files universe and none pending: its tables are the pool, copied unread
        copied = (not inp["pending"] and isinstance(source, FileUniverse)
                  and source.copy_whole(pooled, _folder(out["pool"])))
        pool = None if copied else source.records(pooled)
    finally:
        source.close()
    if pool is None:
        candidates, size = result.candidates, len(pooled)
    else:
        pool, candidates = _with_monitored(pool, result.candidates, len(result.rounds) + 1, inp["pending"], skips)
        pool.write(_folder(out["pool"]))
        size = len(pool.works)
    write_table(candidates, CANDIDATES, out["candidates"])
    return {"candidates": len(candidates), "admitted": len(result.admitted),
            "monitored": int((candidates["direction"] == "monitor").sum()), "pool": size, "rounds": result.rounds}


def _with_monitored(pool: Bundle, candidates, round_no: int, pending_paths: list[str], skips: Skips):
    """Add the works `b2g monitor` left pending to the pool, as admitted candidates of origin monitor."""
    known = set(pool.works["work_id"])
    pending = [w for path in pending_paths for w in monitor.read_pending_file(Path(path))
               if short_id(w["id"]) not in known]
    if not pending:
        return pool, candidates
    extra = bundle_from_works(pending, skips)
    rows = pd.DataFrame([{"work_id": short_id(w["id"]), "round": round_no, "direction": "monitor",
                          "via": " ".join(w["_b2g"]["via"]), "links": len(w["_b2g"]["via"]),
                          "score": float(len(w["_b2g"]["via"])), "admitted": True} for w in pending])
    candidates = pd.concat([candidates[~candidates["work_id"].isin(rows["work_id"])], rows], ignore_index=True)
    merged = Bundle(**{name: pd.concat([getattr(pool, name), getattr(extra, name)], ignore_index=True)
                       for name in BUNDLE_TABLES})
    return merged, candidates


def run_cited(spec: dict, kind: None, inp: Named, out: Named, skips: Skips) -> dict[str, Any]:
    """The works the pool cites, looked up in the source (OpenAlex through the raw store; files: the
    universe) unless `labels.fetch` is false. An exhausted OpenAlex budget stops the job as it stops the
    chain: every answer had is kept in the store, and a re-run after the reset asks only the rest.
    Reads only what labels are made of (no abstracts; the references as one Arrow column, counted there)
    and, from a files universe, only the works asked: a pool of a million works stays a few GB."""
    from .cited import META, cited_table, count_citing, look_up
    from .errors import NetworkError

    pool = {Path(path).stem: path for path in inp["pool"]}
    works = read_columns(pool["works"], WORKS, ["year", "title", "venue", "doi"])
    authorships = read_columns(pool["authorships"], AUTHORSHIPS, ["author_name"])
    counts = count_citing(read_arrow(pool["references"], ["referenced_id"]).column("referenced_id"),
                          spec["min_citing"])
    opened: list = []

    def lookup(work_ids: list[str]):   # the source is opened only when there is something to ask
        opened.append(_lookup_source(spec["source"], inp["universe"], work_ids, skips))
        return look_up(opened[0], work_ids)

    parsed = read_columns(inp["parsed"], SOURCE_REFS, META[1:]) if inp.get("parsed") else None
    try:
        table, counts = cited_table(works, authorships, counts, spec["labels"]["max_works"],
                                    lookup if spec["labels"]["fetch"] else None, parsed)
    except NetworkError as exc:
        if exc.code == "BUDGET_EXHAUSTED":
            exc.message += " Labels can do without: `labels: {fetch: false}` skips this look-up."
            exc.args = (exc.message,)
        raise
    finally:
        for source in opened:
            source.close()
    write_table(table, CITED, out["works"])
    return {**counts, "source": spec["source"]["kind"]}


def _lookup_source(source: dict[str, Any], universe: list[str], work_ids: list[str], skips: Skips):
    """The source to look `work_ids` up in: OpenAlex as `open_source` opens it; a files universe read for
    those works alone (its answers are the same: a universe's records of a work are its rows)."""
    if source["kind"] == "openalex":
        return open_source(source, universe, skips)
    cited = next(p for p in universe if p.endswith("/cited.parquet"))
    return FileUniverse(read_filtered(_folder(universe), work_ids), read_rows(cited, SOURCE_REFS, work_ids))


def run_corpus(spec: dict, kind: None, inp: Named, out: Named, skips: Skips) -> dict[str, Any]:
    """Screen the pool and write the corpus. Screening reads only the columns the filters need; the
    corpus tables are the pool's Parquet files filtered in Arrow and the bibliography is written a chunk
    of works at a time, column by column in Arrow (export/bibliography_columns.py), so a pool of a
    million works never stands whole in pandas or Python objects (`build_corpus` is the same in memory,
    for tests and small pools)."""
    from .export.bibliography_columns import write_corpus_bibliography

    seeds, candidates = read_table(inp["seeds"], SEEDS), read_table(inp["candidates"], CANDIDATES)
    pool = {Path(path).stem: path for path in inp["pool"]}
    works_columns, terms_columns = screen_columns(spec["filter"])
    terms = read_columns(pool["terms"], TERMS, terms_columns) if terms_columns is not None else None
    decisions = read_decisions(inp["curation"])
    screening = screen(read_columns(pool["works"], WORKS, works_columns), terms, seeds, candidates,
                       decisions, spec["filter"])
    del terms
    corpus = _folder(out["tables"])
    filter_bundle(_folder(inp["pool"]), corpus, screening.loc[screening["included"], "work_id"])
    write_table(screening, SCREENING, out["screening"])
    write_corpus_bibliography(corpus / "works.parquet", corpus / "authorships.parquet",
                              out["bibliography"])   # by work ID
    sources = (json.loads(Path(inp["sources"]).read_text(encoding="utf-8"))["counts"]["files"]
               if inp.get("sources") else None)
    people = people_screening(screening["work_id"], seeds["work_id"], decisions, spec["stopping"])
    write_json(out["prisma"], prisma(seeds, candidates, screening, sources, people))
    return {"pool": len(screening), "included": int(screening["included"].sum()),
            "excluded": {k: int(v) for k, v in screening["excluded_by"].value_counts().sort_index().items()},
            "accepted": int((screening["decision"] == "accept").sum()),
            "rejected": int((screening["decision"] == "reject").sum())}


def run_simulate(spec: dict, kind: None, inp: Named, out: Named, skips: Skips) -> dict[str, Any]:
    """Screening replayed on the spec's labelled review over the pool (bib2graph.screening.simulation)."""
    from .progress import counting
    from .screening.features import read
    from .screening.labels import pool_identifiers
    from .screening.simulation import replay_labels

    screening = spec["screening"]
    pool = {Path(path).stem: path for path in inp["pool"]}
    features = read(Path(pool["works"]).parent, inp["candidates"], screening["model"])
    simulation = screening["simulation"]
    with counting("screening replayed") as seen:
        summary = replay_labels(features, pool_identifiers(pool["works"]), inp["labels"], screening, simulation["priors"],
                                simulation["seeds"], out["table"], seen,
                                named=simulation["labels"])   # as the spec names it: no absolute path in an artifact
    write_json(out["summary"], summary)
    return {"runs": len(summary["runs"]), "matched": summary["labels"]["matched"], "mean": summary["mean"]}


#: what the network job never reads: the abstracts (cluster names, which read them, are the clusters job's)
NETWORK_UNREAD = {"works": ["abstract"]}
#: the corpus tables each kind's network job reads; the others stand empty (at a million works the terms
#: are 1.9 GB in memory, the affiliations 0.4 GB)
_WORK_TABLES = ("works", "authorships", "references")
NETWORK_TABLES = {"coupling": _WORK_TABLES, "cocitation": _WORK_TABLES, "citation": _WORK_TABLES,
                  "coauthorship": ("works", "authorships"), "institutions": ("works", "affiliations"),
                  "keywords": ("works", "terms")}


def run_network(spec: dict, kind: str, inp: Named, out: Named, skips: Skips,
                timings: dict[str, float] | None = None) -> dict[str, Any]:
    """The network's tables and metrics; drawings (GraphML and the other visual formats) are the export
    job's, with its reduction; the stability of its clusters the stability job's. `timings` gets seconds per
    stage (benchmarks/bench_networks.py). One thread: its stages run one after another."""
    from . import networks
    from .networks.timing import stopwatch

    lap = stopwatch(timings)
    params = dict(spec["network"])
    if inp.get("thesaurus"):
        params["thesaurus"] = inp["thesaurus"][0]   # the path the registry resolved, tracked as an input
    corpus = Bundle.read(_folder(inp["corpus"]), without=NETWORK_UNREAD, tables=NETWORK_TABLES[kind])
    cited = read_table(inp["cited"], CITED) if inp.get("cited") else None
    lap("read")
    net = networks.build(kind, corpus, params, spec["communities"], cited=cited, metrics=spec.get("metrics"),
                         timings=timings, name=False, stability=False)
    lap = stopwatch(timings)   # the build lapped its own stages
    net.write(Path(out["edges"]).parent, graph=Path(out["metrics"]).parent, conformed=True)   # as built
    lap("write")
    return {"nodes": net.metrics["nodes"], "edges": net.metrics["edges"]}


def run_stability(spec: dict, kind: str, inp: Named, out: Named, skips: Skips) -> dict[str, Any]:
    """How the network job's clusters come back under other seeds (networks.communities.stability), from its
    tables: the edges as int32 codes among the nodes (in node_id order, the order the network job coded
    them), so the graph is the one it clustered. With one run nothing is read."""
    from .networks.coding import edge_codes
    from .networks.communities import stability, undirected
    from .networks.metrics import tidy
    from .networks.params import resolve_communities
    from .networks.schema import NODES

    params = resolve_communities(spec["communities"])
    nodes = read_columns(inp["nodes"], NODES, ["cluster"])
    if params["stability_runs"] > 1:
        directed = json.loads(Path(inp["metrics"]).read_text(encoding="utf-8"))["directed"]
        source, target, weight = edge_codes(inp["edges"], nodes["node_id"])
    else:   # the graph's nodes alone: no other seed runs
        directed, source, target, weight = False, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    graph = undirected(len(nodes), source, target, weight, directed)
    del source, target, weight
    record = stability(graph, nodes["cluster"].to_numpy(dtype=np.int64), params)
    write_json(out["stability"], tidy({"kind": kind, **record}))   # rounded as metrics.json is
    return {"runs": record["stability"]["runs"], "mean_ari": record["stability"]["mean_ari"],
            "clusters_reproducible": record["clusters_reproducible"]}


def run_clusters(spec: dict, kind: str, inp: Named, out: Named, skips: Skips) -> dict[str, Any]:
    """The network's nodes and metrics with its clusters named (networks.cluster_names)."""
    from .networks.cluster_names import name_clusters
    from .networks.metrics import tidy
    from .networks.params import resolve_labels
    from .networks.schema import NODES

    params = dict(spec["network"])
    if inp.get("thesaurus"):
        params["thesaurus"] = inp["thesaurus"][0]
    nodes = read_table(inp["nodes"], NODES)
    metrics = json.loads(Path(inp["metrics"]).read_text(encoding="utf-8"))
    corpus = Bundle.read(_folder(inp["corpus"]))
    named, record = name_clusters(kind, nodes, metrics, corpus, resolve_labels(spec["labels"]), params)
    write_table(named, NODES, out["nodes"])
    write_json(out["metrics"], tidy(record))
    return {"nodes": record["nodes"], "edges": record["edges"], "clusters": record["n_clusters"],
            "labelled_by_terms": sum(e["labelled_by"] == "terms" for e in record["clusters"])}


def run_layout(spec: dict, kind: str, inp: Named, out: Named, skips: Skips) -> dict[str, Any]:
    """The map of one network. The edges are read as int32 codes and float weights straight from Parquet
    (networks.coding.edge_codes), never as a pandas table of string IDs, and laid out in place: the job
    holds them once, beside the igraph graph of each component (docs/networks.md, "Scheduling")."""
    from .networks.coding import edge_codes
    from .networks.layout import layout
    from .networks.schema import LAYOUT, NODES

    nodes = read_columns(inp["nodes"], NODES, ["cluster"])
    source, target, weight = edge_codes(inp["edges"], nodes["node_id"])
    params = spec["layout"]
    xy = layout(len(nodes), source, target, weight, nodes["cluster"].to_numpy(dtype="int64"),
                algorithm=params["algorithm"], seed=params["seed"], iterations=params["iterations"], copy=False)
    write_table(pd.DataFrame({"node_id": nodes["node_id"], "x": xy[:, 0], "y": xy[:, 1]}), LAYOUT, out["layout"])
    return {"nodes": len(nodes), "edges": len(source)}


def _positions(path: str, node_ids: pd.Series):
    """The layout's (x, y) of `node_ids` (n × 2); a layout of other nodes is a DataError."""
    from .errors import DataError
    from .networks.schema import LAYOUT

    layout = read_table(path, LAYOUT)
    if layout["node_id"].tolist() != node_ids.tolist():
        raise DataError(f"artifact {path} holds other nodes than the network; `b2g run` rebuilds it",
                        code="ARTIFACT_CORRUPT")
    return layout[["x", "y"]].to_numpy(dtype="float64")


def run_export(spec: dict, kind: str, inp: Named, out: Named, skips: Skips,
               timings: dict[str, float] | None = None, threads: int = 1) -> dict[str, Any]:
    """Every format `export.formats` asks for; the visual ones hold the spec's reduction. `timings` gets
    seconds per stage (benchmarks/bench_networks.py). With two `threads` the CSV tables, which hold every
    edge, are written by a forked process while the job writes the other formats (networks.beside)."""
    from . import export
    from .export.reading import write_reading_order
    from .export.reduction import reduced, visual_edges
    from .networks import Network
    from .networks.beside import beside, spare_core
    from .networks.timing import stopwatch
    from .registry import export_names

    lap = stopwatch(timings)
    formats = spec["export"]["formats"]
    net = Network.read(Path(inp["metrics"]).parent, evidence=False)   # reads only its declared inputs
    corpus = _export_corpus(kind, _folder(inp["corpus"]))
    xy = _positions(inp["layout"], net.nodes["node_id"])
    folder = Path(out["manifest"]).parent
    lap("read")
    keep, reduction = visual_edges(net.edges, net.nodes["node_id"], spec["export"]["max_edges"],
                                   spec["export"]["top_edges_per_node"])
    visual = reduced(net, keep)
    lap("reduction")
    held: dict[str, int] = {}
    if "graphml" in formats:   # with the map's x and y
        export.write_graphml(visual, corpus, folder / "network.graphml", xy)
        held["graphml"] = len(visual.edges)
        lap("graphml")
    if "gexf" in formats:
        export.write_gexf(visual, corpus, folder / "network.gexf", xy)
        held["gexf"] = len(visual.edges)
        lap("gexf")

    def write_csv() -> None:   # a table, not a drawing: every edge
        export.write_csv(net, folder / "nodes.csv", folder / "edges.csv")
        write_reading_order(net, folder / "reading_order.csv")

    csv_files = [folder / "nodes.csv", folder / "edges.csv", folder / "reading_order.csv"]
    csv_written = (beside(write_csv, writes=csv_files)[0] if "csv" in formats and threads >= 2 and spare_core()
                   else write_csv)
    if "csv" in formats:
        held["csv"] = len(net.edges)
    if "pajek" in formats:
        export.write_pajek(visual, folder / "network.net")
        held["pajek"] = len(visual.edges)
        lap("pajek")
    if "vosviewer" in formats:   # reciprocal arcs are one link
        held["vosviewer"] = export.write_vosviewer(visual, folder / "vosviewer_map.txt",
                                                   folder / "vosviewer_network.txt", folder / "vosviewer.json", xy)
        lap("vosviewer")
    if "bibliography" in formats:
        _export_bibliography(spec, kind, inp, net, corpus, folder)
        lap("bibliography")
    if "csv" in formats:
        csv_written()
        lap("csv")
    return {"formats": formats, "files": export_names(formats), "edges": held, "reduction": reduction}


def _export_corpus(kind: str, folder: Path) -> Bundle:
    """The corpus tables the export job uses: a work network's nodes carry fields of `works` (abstracts
    included); an item network's bibliography finds each work's items in the tables its network job read."""
    from .export.reading import PAPER_KINDS

    if kind in PAPER_KINDS:
        return Bundle.read(folder, tables=("works",))
    return Bundle.read(folder, without=NETWORK_UNREAD, tables=NETWORK_TABLES[kind])


def _export_bibliography(spec: dict, kind: str, inp: Named, net, corpus: Bundle, folder: Path) -> None:
    """The network's corpus works in reading order, tagged with their clusters; item networks find a
    work's items as the network job did (thesaurus included). Written by columns from the corpus's
    tables (export/bibliography_columns.py)."""
    from .export.bibliography import network_order
    from .export.bibliography_columns import write_network_bibliography
    from .export.reading import PAPER_KINDS
    from .networks.item_networks import item_rows

    items = None
    if kind not in PAPER_KINDS:
        params = dict(spec["network"])
        params["thesaurus"] = inp["thesaurus"][0] if inp.get("thesaurus") else None
        items = item_rows(kind, corpus, params)[0][["work_id", "item_id"]]
    tables = _folder(inp["corpus"])
    write_network_bibliography(tables / "works.parquet", tables / "authorships.parquet",
                               network_order(kind, net.nodes, items),
                               [folder / f"bibliography{suffix}" for suffix in (".bib", ".ris", ".csl.json")])


def run_report(spec: dict, kind: None, inp: Named, out: Named, skips: Skips) -> dict[str, Any]:
    from .export.reading import PAPER_KINDS, reading_order
    from .networks.schema import EDGES, NODES
    from .report import write_report

    def load(path: str) -> dict:
        return json.loads(Path(path).read_text(encoding="utf-8"))

    manifests = {name: load(inp[name]) for name in ("seeds", "chain", "corpus", "sources") if inp.get(name)}
    trends, sliced = _time_tables(inp)
    if trends is not None:
        manifests["trends"] = load(next(p for p in inp["trends"] if p.endswith("manifest.json")))
    metrics = [{**load(p), **load(s)} for p, s in zip(inp["metrics"], inp["stability"])]   # stability.json's
                                                                                           # fields beside
    tables = [read_table(nodes, NODES) for nodes in inp["nodes"]]
    reading = {m["kind"]: reading_order(m["kind"], table)
               for table, m in zip(tables, metrics) if m["kind"] in PAPER_KINDS}
    maps = {}
    for table, edges, layout, m in zip(tables, inp["edges"], inp["layouts"], metrics):
        xy = _positions(layout, table["node_id"])
        maps[m["kind"]] = (table.assign(x=xy[:, 0], y=xy[:, 1]), read_table(edges, EDGES))
    simulation = None
    if inp.get("simulation"):
        from .tables import SIMULATION

        table, summary = sorted(inp["simulation"], key=lambda p: not p.endswith(".parquet"))
        simulation = (read_table(table, SIMULATION), load(summary))
    write_report(out["html"], spec, manifests, read_table(inp["screening"], SCREENING),
                 read_table(inp["works"], WORKS), metrics, load(inp["prisma"]), reading, maps, trends, sliced,
                 simulation)
    return {"networks": len(metrics), "sliced": sorted(sliced)}


def _time_tables(inp: Named) -> tuple[dict[str, pd.DataFrame] | None, dict[str, dict[str, pd.DataFrame]]]:
    """The trend tables and each sliced kind's tables the report reads (none without `time.enabled`)."""
    from .temporal.schema import SLICE_TABLES, TREND_TABLES

    if not inp.get("trends"):
        return None, {}
    trends = {Path(p).stem: read_table(p, TREND_TABLES[Path(p).stem]) for p in inp["trends"] if p.endswith(".parquet")}
    sliced: dict[str, dict[str, pd.DataFrame]] = {}
    for path in inp.get("slices", []):
        kind, name = Path(path).parent.name, Path(path).stem
        sliced.setdefault(kind, {})[name] = read_table(path, SLICE_TABLES[name])
    return trends, sliced


def _write_tables(tables: dict[str, pd.DataFrame], schemas: dict, out: Named) -> dict[str, pd.DataFrame]:
    """Write each table (an empty one with its schema's columns); return them as written."""
    from .tables import empty

    return {name: write_table(tables[name] if len(tables[name]) else empty(schema), schema, out[name])
            for name, schema in schemas.items()}


def run_trends(spec: dict, kind: None, inp: Named, out: Named, skips: Skips) -> dict[str, Any]:
    from .temporal import analysis, guards, slices
    from .temporal.schema import TREND_TABLES

    corpus = Bundle.read(_folder(inp["corpus"]))
    reasons = guards.excluded(corpus)
    kept = corpus.subset(reasons.index[reasons.isna()])
    known = [pd.read_parquet(p, columns=None) for p in inp["known"]]
    meta = analysis.metadata(corpus, *known)
    span = analysis.year_range(kept.works, spec["time"])
    bursts, tested = (analysis.burst_table(kept, meta, span, spec["time"]["bursts"], {"field": spec["terms_field"]})
                      if span else (pd.DataFrame(), {}))
    citing = kept if span is None else kept.subset(slices.in_span(kept.works, span))   # the range's works cite
    rpys, top, placed = analysis.rpys_tables(citing, [corpus.works, *known], meta, spec["time"]["rpys"]["top"])
    _write_tables({"bursts": bursts, "rpys": rpys, "rpys_top": top}, TREND_TABLES, out)
    found = bursts["family"].value_counts().to_dict() if len(bursts) else {}
    return {"guards": guards.counts(reasons), "years": list(span) if span else None, "items_tested": tested,
            "bursts": {family: int(found.get(family, 0)) for family in sorted(tested)},   # 0: tested, none found
            "rpys": placed}


def run_slices(spec: dict, kind: str, inp: Named, out: Named, skips: Skips) -> dict[str, Any]:
    from .export import dynamic_gexf
    from .temporal import analysis, guards, slices
    from .temporal.schema import SLICE_TABLES
    from .temporal.sliced import build_slices

    params = dict(spec["network"])
    if inp.get("thesaurus"):
        params["thesaurus"] = inp["thesaurus"][0]
    corpus = Bundle.read(_folder(inp["corpus"]))
    reasons = guards.excluded(corpus)
    kept = corpus.subset(reasons.index[reasons.isna()])
    time = spec["time"]
    span = analysis.year_range(kept.works, time)
    spans = slices.spans(span[0], span[1], time["slice_years"]) if span else []
    cited = read_table(inp["cited"], CITED) if inp.get("cited") else None
    tables, counts = build_slices(kind, kept, spans, params, spec["communities"], spec.get("metrics"),
                                  time["alignment"]["threshold"], cited)
    directed = counts.pop("directed")
    written = _write_tables(tables, SLICE_TABLES, out)
    gexf = dynamic_gexf.write(written["nodes"], written["edges"], directed, out["gexf"])
    return {"guards": guards.counts(reasons), **counts, "gexf": gexf}


PHASES: dict[str, Callable[..., dict[str, Any]]] = {
    "snapshot_part": run_snapshot_part, "sources": run_sources, "cited": run_cited,
    "seed": run_seed, "chain": run_chain, "corpus": run_corpus, "network": run_network, "clusters": run_clusters,
    "stability": run_stability,
    "layout": run_layout, "export": run_export, "trends": run_trends, "slices": run_slices,
    "simulate": run_simulate, "report": run_report,
}
#: phases that use a second thread when Snakemake gives them one (registry.DEMANDS)
THREADED = ("export",)


def run(rule: str, kind: str | None, params: str, inputs: Named, outputs: Named, threads: int = 1) -> dict[str, Any]:
    """Check, run and record one job; return its counts. `params` is the rule's canonical JSON; `threads`
    the job's (Snakemake's `threads`, which its `--cores` may lower): only `THREADED` phases use two."""
    spec = json.loads(params)
    checks.check(rule, spec)
    skips = Skips(strict=bool(spec.get("strict", False)))
    counts = PHASES[rule](spec, kind, inputs, outputs, skips, **({"threads": threads} if rule in THREADED else {}))
    made = [p for p in flat(outputs) if p != outputs["manifest"]]
    write_manifest(outputs["manifest"], f"{rule}:{kind}" if kind else rule, params, flat(inputs), made, counts,
                   skips.as_rows())
    return counts
