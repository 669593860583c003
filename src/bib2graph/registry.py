"""The jobs of a review and the files each one reads and writes: the one place that says so.

The workflow's rules take their inputs, outputs and params from here; `b2g status`, `validate`, the
preflight, snapshots and the manifests ask the same functions. A file therefore cannot be an input in
one place and invisible in another, and every job's manifest lists exactly what the rule declares.

    [snapshot_part:{part} ─►] [sources ─►] seed ─► chain ─► corpus ─► network:{kind} ─► layout:{kind}
                                                                    │         ├─► clusters:{kind} ─► export:{kind}
                                                                    │         └─► stability:{kind}
                                                                    └─► report (reads the named networks, their
                                                                        stability and layouts)

`sources` (with `source.kind: files`) reads the source files once, of whatever format, merges the
works several files hold and resolves their cited references (sources/ingest.py); seed, chain and cited
read its tables, never the files themselves. With `source.kind: snapshot` one `snapshot_part` job reads
each partition of the OpenAlex snapshot (the scatter; the partitions are listed from the snapshot folder,
sources/snapshot_layout.py) and `sources` gathers them into the same tables (sources/snapshot.py): a new
dated partition adds one job, and the others' outputs stay as they are.

`network` clusters and measures; `clusters` names the clusters (`communities.labels`) and writes the
nodes and metrics everything downstream reads, so a change of labels never clusters again. `stability`
runs the other seeds' clusterings of the network's graph (`communities.stability_runs`), beside the
export and the layout rather than inside the network job, so a change of runs never clusters again.

`cited` (chain ─► cited ─► network:cocitation; only with a co-citation network) collects the
metadata of the works the pool cites, so that co-citation nodes outside the corpus get readable
labels; it reads the pool, not the corpus, so curation never re-runs it.

Paths are relative to the workspace root; per-kind paths hold ``{kind}``, per-partition ones ``{part}``.
Files outside `results/` (the spec's source, seed and thesaurus files, the snapshot's partitions,
`config/curation.tsv`, the monitor's pending works)
are the review's *external* inputs: they must exist before a job starts (the preflight checks them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .atomic import canonical_json
from .networks.params import detection, without_stability
from .paths import CURATION_FILE
from .spec import resolve_path

BUNDLE = ("works", "authorships", "affiliations", "references", "terms")
MONITOR_PENDING = "resources/monitor/pending.jsonl.gz"


def bundle(folder: str) -> list[str]:
    return [f"{folder}/{name}.parquet" for name in BUNDLE]


EXPORT_FILES = {
    "graphml": ["network.graphml"],
    "gexf": ["network.gexf"],
    "csv": ["nodes.csv", "edges.csv", "reading_order.csv"],
    "pajek": ["network.net"],
    "vosviewer": ["vosviewer_map.txt", "vosviewer_network.txt", "vosviewer.json"],
    "bibliography": ["bibliography.bib", "bibliography.ris", "bibliography.csl.json"],
}
#: The corpus's bibliography, in the formats a reference manager imports (bib2graph.export.bibliography).
CORPUS_BIBLIOGRAPHY = ["results/corpus/bibliography.bib", "results/corpus/bibliography.ris",
                       "results/corpus/bibliography.csl.json"]
#: The network kinds that take a thesaurus (networks.<kind>.thesaurus).
THESAURUS_KINDS = ("coauthorship", "institutions", "keywords")


def export_names(formats: list[str]) -> list[str]:
    """The files one network's export folder holds for the chosen formats, in a fixed order."""
    return [name for fmt in EXPORT_FILES if fmt in formats for name in EXPORT_FILES[fmt]]


@dataclass(frozen=True)
class Rule:
    """One workflow rule: the phase it belongs to, its outputs and the spec sections it is given."""

    name: str
    phase: str                      # the `b2g run` target that runs up to it
    outputs: Callable[[dict], dict[str, Any]]   # spec → named outputs (str or list of str)
    spec_keys: tuple[str, ...] = ()
    per_kind: bool = False
    wanted: Callable[[dict], bool] = lambda _spec: True   # whether the spec asks for this job at all
    per_part: bool = False          # one job per partition of the OpenAlex snapshot (wildcard `part`)
    kinds: Callable[[dict], list[str]] | None = None   # per-kind rules: which kinds (default: every network)

    @property
    def wildcard(self) -> str | None:
        """The name of the rule's one wildcard: `kind`, `part`, or None."""
        return "kind" if self.per_kind else "part" if self.per_part else None


SOURCES = "results/sources"
SOURCE_TABLES = bundle(SOURCES) + [f"{SOURCES}/cited.parquet"]


def _sources_out(_spec):
    return {"tables": bundle(SOURCES), "cited": f"{SOURCES}/cited.parquet", "origins": f"{SOURCES}/origins.parquet",
            "manifest": f"{SOURCES}/manifest.json"}


def _files_source(spec: dict) -> bool:
    return spec["source"]["kind"] == "files"


def _snapshot_source(spec: dict) -> bool:
    return spec["source"]["kind"] == "snapshot"


def _universe_source(spec: dict) -> bool:
    """Whether the `sources` job writes the universe seed and chain read (files or snapshot)."""
    return spec["source"]["kind"] in ("files", "snapshot")


SNAPSHOT_PART = "results/snapshot/{part}"
SNAPSHOT_PART_TABLES = BUNDLE + ("origins",)


def _snapshot_part_out(_spec):
    return {"tables": [f"{SNAPSHOT_PART}/{name}.parquet" for name in SNAPSHOT_PART_TABLES],
            "manifest": f"{SNAPSHOT_PART}/manifest.json"}


def partitions(spec: dict, root: str | Path = ".") -> list[str]:
    """The keys of the snapshot's partitions (`2024-01-01.part_000`), oldest first; none without a snapshot."""
    if not _snapshot_source(spec):
        return []
    from .sources.snapshot_layout import partitions as listed

    folder = spec["source"]["snapshot"].get("path")
    if not folder:   # the jobs are listed from the folder, so no job's check could say it
        from .errors import SpecError

        raise SpecError("source.snapshot.path is not set: give the folder holding the snapshot's "
                        "data/jsonl/works/ (or data/works/)",
                        code="SPEC_INVALID", details={"key": "path", "place": "source.snapshot.path"})
    return listed(resolve_path(root, folder))


def _seed_out(_spec):
    return {"seeds": "results/seed/seeds.parquet", "manifest": "results/seed/manifest.json"}


def _chain_out(_spec):
    return {"candidates": "results/chain/candidates.parquet", "pool": bundle("results/chain/pool"),
            "manifest": "results/chain/manifest.json"}


CITED_WORKS = "results/chain/cited/works.parquet"
CITED_POOL = [f"results/chain/pool/{name}.parquet" for name in ("works", "authorships", "references")]


def _cited_out(_spec):
    return {"works": CITED_WORKS, "manifest": "results/chain/cited/manifest.json"}


def _cited_wanted(spec: dict) -> bool:
    return "cocitation" in spec["networks"]


def _corpus_out(_spec):
    return {"tables": bundle("results/corpus"), "screening": "results/corpus/screening.parquet",
            "prisma": "results/corpus/prisma.json", "bibliography": list(CORPUS_BIBLIOGRAPHY),
            "manifest": "results/corpus/manifest.json"}


NETWORK = "results/networks/{kind}"
GRAPH = f"{NETWORK}/graph"   # the network job's nodes and metrics, before its clusters are named
STABILITY = f"{NETWORK}/stability"   # how the clusters come back under other seeds (the stability job's)


def _network_out(_spec):
    return {"nodes": f"{GRAPH}/nodes.parquet",
            "edges": f"{NETWORK}/edges.parquet", "evidence": f"{NETWORK}/evidence.parquet",
            "metrics": f"{GRAPH}/metrics.json", "manifest": f"{GRAPH}/manifest.json"}


def _stability_out(_spec):
    return {"stability": f"{STABILITY}/stability.json", "manifest": f"{STABILITY}/manifest.json"}


def _clusters_out(_spec):
    return {"nodes": f"{NETWORK}/nodes.parquet", "metrics": f"{NETWORK}/metrics.json",
            "manifest": f"{NETWORK}/manifest.json"}


def _layout_out(_spec):
    return {"layout": "results/layouts/{kind}/layout.parquet", "manifest": "results/layouts/{kind}/manifest.json"}


def _export_out(spec):
    return {"files": [f"results/export/{{kind}}/{name}" for name in export_names(spec["export"]["formats"])],
            "manifest": "results/export/{kind}/manifest.json"}


TRENDS = "results/trends"
TREND_TABLES = ("bursts", "rpys", "rpys_top")
SLICES = "results/slices/{kind}"
SLICE_TABLES = ("nodes", "edges", "alignment", "events", "themes", "flows")


def _time_wanted(spec: dict) -> bool:
    return bool(spec["time"]["enabled"])


def _sliced(spec: dict) -> list[str]:
    """The networks built per time slice (only those the spec builds at all)."""
    return sorted(k for k in spec["time"]["networks"] if k in spec["networks"]) if _time_wanted(spec) else []


def _trends_out(_spec):
    return {**{name: f"{TRENDS}/{name}.parquet" for name in TREND_TABLES}, "manifest": f"{TRENDS}/manifest.json"}


def _slices_out(_spec):
    return {**{name: f"{SLICES}/{name}.parquet" for name in SLICE_TABLES}, "gexf": f"{SLICES}/network.gexf",
            "manifest": f"{SLICES}/manifest.json"}


SCREENING = "results/screening"


def _simulate_out(_spec):
    return {"table": f"{SCREENING}/simulation.parquet", "summary": f"{SCREENING}/simulation.json",
            "manifest": f"{SCREENING}/manifest.json"}


def _simulate_wanted(spec: dict) -> bool:
    return bool(spec["screening"]["simulation"]["labels"])


def _report_out(_spec):
    return {"html": "results/report/index.html", "manifest": "results/report/manifest.json"}


_TABLES = {"results/seed/seeds.parquet": "seeds", f"{SOURCES}/cited.parquet": "source_refs",
           f"{SOURCES}/origins.parquet": "origins", **{f"{SOURCES}/{name}.parquet": name for name in BUNDLE}, "results/chain/candidates.parquet": "candidates",
           CITED_WORKS: "cited",
           "results/corpus/screening.parquet": "screening", f"{SCREENING}/simulation.parquet": "simulation",
           **{f"results/{folder}/{name}.parquet": name for folder in ("chain/pool", "corpus") for name in BUNDLE}}

RULES: dict[str, Rule] = {rule.name: rule for rule in (
    Rule("snapshot_part", "seed", _snapshot_part_out, ("source", "strict"), wanted=_snapshot_source,
         per_part=True),
    Rule("sources", "seed", _sources_out, ("source", "strict"), wanted=_universe_source),
    Rule("seed", "seed", _seed_out, ("seed", "source", "strict")),
    Rule("chain", "chain", _chain_out, ("chain", "source", "strict")),
    Rule("cited", "chain", _cited_out, ("labels", "source", "strict"), wanted=_cited_wanted),
    Rule("corpus", "corpus", _corpus_out, ("filter",)),
    Rule("network", "networks", _network_out, per_kind=True),
    Rule("clusters", "networks", _clusters_out, ("communities",), per_kind=True),
    Rule("stability", "networks", _stability_out, ("communities",), per_kind=True),
    Rule("layout", "networks", _layout_out, ("layout",), per_kind=True),
    Rule("export", "exports", _export_out, ("export",), per_kind=True),
    Rule("trends", "networks", _trends_out, ("time",), wanted=_time_wanted),
    Rule("slices", "networks", _slices_out, ("time",), per_kind=True, wanted=_time_wanted, kinds=_sliced),
    Rule("simulate", "report", _simulate_out, ("screening",), wanted=_simulate_wanted),
    Rule("report", "report", _report_out, ("chain", "communities", "export", "filter", "layout", "name", "networks",
                                           "screening", "seed", "source", "time")),
)}
PHASES = ("seed", "chain", "corpus", "networks", "exports", "report")


@dataclass(frozen=True)
class Demand:
    """What a job asks of a scheduler: threads, and memory in MB as ``base_mb + per_row_kb · rows / 1024``,
    rows being those of its input table named `rows_of` (the table its pairs or edges grow with); with
    rows in `two_threads_rows` (from, below) it asks for a second thread."""

    threads: int = 1
    base_mb: int = 1000
    per_row_kb: float = 0
    rows_of: str = ""
    two_threads_rows: tuple[int, int] = (0, 0)


#: Calibrated on benchmarks/bench_networks.py (docs/networks.md, "Scale"): a network job peaks at about
#: 1.3 GB for 250k reference rows (10k works) and 8.7 GB for 2.5M (100k works) before its graphs were built
#: from an iterator; since, 1.0–1.3 GB at 500k rows and 5.3 GB at 2.5M (coupling, 41.6M edges); the export job, whose visual formats hold at most
#: export.max_edges edges and whose CSV is written a chunk at a time, peaked at 0.8–1.0 GB for 5M edges
#: (0.15 KB per edge with its tables; 2.7 KB when networkx wrote every edge). Jobs are single-threaded
#: (igraph, numpy; PRPACK on one OpenMP thread), so more threads would only wait (the network job's second
#: thread, which ran eigenvector centrality in a forked process, went when scipy's sparse solver made it a
#: fraction of the job). The stability job holds the edges as int32 codes and weights (16 bytes
#: an edge) and igraph's graph with Leiden's own arrays: 612 MB at 5.7M edges, some 65 bytes an edge above
#: the job's 250 MB of imports. The export job's second
#: thread, from 1M to 20M edges, writes the CSV tables (every edge, a chunk at a time) beside the other
#: formats; above, the child's reads of the network's tables would count twice against what the job asks
#: (at 41.6M edges: 4.2 GB in the job, 2.6 GB in the child). The layout job holds its edges once (int32
#: codes and float64 weights, 16 bytes per edge, grouped by component in place; 32 for a directed table,
#: whose arcs are merged into a copy) beside igraph's graph of the largest component (32 bytes per edge, 56
#: while it is built): about 300 MB + 75 bytes per edge (benchmarks/bench_layout.py --job: 410 MB at 1.9M
#: edges, 941 MB at 9.3M, 3.2 GB at 41.7M, where it peaked at 9.5 GB with a pandas table of string IDs).
#: Other rules: one thread, `base_mb`.
DEMANDS = {
    "network": Demand(per_row_kb=2.5, rows_of="references.parquet"),
    "layout": Demand(base_mb=500, per_row_kb=0.1, rows_of="edges.parquet"),
    "stability": Demand(base_mb=500, per_row_kb=0.1, rows_of="edges.parquet"),
    "export": Demand(per_row_kb=0.2, rows_of="edges.parquet", two_threads_rows=(1_000_000, 20_000_000)),
    "slices": Demand(per_row_kb=2.5, rows_of="references.parquet"),   # one slice's network at a time
}


def threads(rule: str, paths: list[str]) -> int:
    """Threads a `rule` job reading `paths` uses (Snakemake's `threads:`, SLURM's cpus-per-task)."""
    demand = DEMANDS.get(rule, Demand())
    low, high = demand.two_threads_rows
    return max(demand.threads, 2) if low <= _rows(demand, paths) < high else demand.threads


def mem_mb(rule: str, paths: list[str]) -> int:
    """Memory (MB) a `rule` job reading `paths` needs, from the rows of the input table that drives it."""
    demand = DEMANDS.get(rule, Demand())
    return int(math.ceil(demand.base_mb + demand.per_row_kb * _rows(demand, paths) / 1024))


def _rows(demand: Demand, paths: list[str]) -> int:
    """Rows of the job's `rows_of` table, from Parquet metadata (no data read). A missing file counts 0
    rows: Snakemake asks again once it exists."""
    import pyarrow.parquet as pq

    return sum(pq.read_metadata(p).num_rows for p in paths
               if demand.rows_of and Path(p).name == demand.rows_of and Path(p).is_file())


def table_schemas() -> dict[str, str]:
    """Table path (with {kind}) → schema name, for every Parquet artifact."""
    per_kind = {"results/networks/{kind}/nodes.parquet": "nodes", f"{GRAPH}/nodes.parquet": "nodes",
                "results/networks/{kind}/edges.parquet": "edges",
                "results/networks/{kind}/evidence.parquet": "evidence:{kind}",
                "results/layouts/{kind}/layout.parquet": "layout"}
    trends = {f"{TRENDS}/{name}.parquet": name for name in TREND_TABLES}
    sliced = {f"{SLICES}/{name}.parquet": f"slice_{name}" if name in ("nodes", "edges") else name
              for name in SLICE_TABLES}
    return {**_TABLES, **per_kind, **trends, **sliced}


def kinds(spec: dict) -> list[str]:
    return sorted(spec["networks"])


def external_inputs(spec: dict, rule: str, kind: str | None = None, root: str | Path = ".") -> dict[str, list[str]]:
    """The files from outside `results/` that a job reads, by role, as paths below `root` (or bundled)."""
    def paths(values):
        return [str(resolve_path(root, v)) for v in values]

    if rule == "snapshot_part":
        from .sources.snapshot_layout import partition_file

        folder = spec["source"]["snapshot"]["path"]
        return {"partition": paths([str(Path(folder) / partition_file(kind, resolve_path(root, folder)))])}
    if rule == "sources" and _snapshot_source(spec):
        return {}
    if rule == "sources":
        folding = spec["source"]["thesaurus"]
        return {"sources": paths(spec["source"]["files"]), "source_thesaurus": paths([folding]) if folding else []}
    if rule == "seed":
        return {"seed_files": paths(spec["seed"]["files"])}
    if rule == "chain":
        pending = Path(root) / MONITOR_PENDING
        return {"pending": [str(pending)] if pending.is_file() else []}
    if rule == "corpus":
        return {"curation": [str(Path(root) / CURATION_FILE)]}
    if rule == "simulate":
        return {"labels": paths([spec["screening"]["simulation"]["labels"]])}
    if kind in THESAURUS_KINDS and (rule in ("network", "slices", "clusters") or (rule == "export" and "bibliography"
                                                          in spec["export"]["formats"])):
        thesaurus = spec["networks"][kind].get("thesaurus")   # the export tags works with their items' clusters
        return {"thesaurus": paths([thesaurus]) if thesaurus else []}
    return {}


def inputs(spec: dict, rule: str, kind: str | None = None, root: str | Path = ".") -> dict[str, Any]:
    """Every file a job reads, by role: upstream artifacts and external inputs alike."""
    found: dict[str, Any] = dict(external_inputs(spec, rule, kind, root))
    if rule in ("network", "slices") and kind == "cocitation":
        found["cited"] = CITED_WORKS
    if rule in ("seed", "chain") or (rule == "cited" and spec["labels"]["fetch"]):
        found["universe"] = list(SOURCE_TABLES) if _universe_source(spec) else []
    if rule == "sources" and _snapshot_source(spec):
        found["parts"] = [f"{SNAPSHOT_PART}/{name}.parquet".format(part=part)
                          for part in partitions(spec, root) for name in SNAPSHOT_PART_TABLES]
    if rule == "chain":
        found["seeds"] = "results/seed/seeds.parquet"
    elif rule == "corpus":
        found.update(seeds="results/seed/seeds.parquet", candidates="results/chain/candidates.parquet",
                     pool=bundle("results/chain/pool"))
        found["curation"] = found["curation"][0]
        if _universe_source(spec):
            found["sources"] = f"{SOURCES}/manifest.json"
    elif rule == "cited":
        found["pool"] = list(CITED_POOL)
        if _universe_source(spec):   # what the citing records say of the works they cite (export files)
            found["parsed"] = f"{SOURCES}/cited.parquet"
    elif rule == "simulate":
        found.update(pool=[f"results/chain/pool/{name}.parquet" for name in ("works", "terms", "references")],
                     candidates="results/chain/candidates.parquet")
        found["labels"] = found["labels"][0]
    elif rule in ("network", "slices"):
        found["corpus"] = bundle("results/corpus")
    elif rule == "trends":
        found.update(corpus=bundle("results/corpus"), known=_known_years(spec))
    elif rule == "layout":
        net = _network_out(spec)
        found.update({k: net[k].format(kind=kind) for k in ("nodes", "edges")})
    elif rule == "stability":
        net = _network_out(spec)
        found.update({k: net[k].format(kind=kind) for k in ("nodes", "edges", "metrics")})
    elif rule == "clusters":
        net = _network_out(spec)
        found.update({k: net[k].format(kind=kind) for k in ("nodes", "metrics")}, corpus=bundle("results/corpus"))
    elif rule == "export":
        net, named = _network_out(spec), _clusters_out(spec)
        found.update({k: named[k].format(kind=kind) for k in ("nodes", "metrics")},
                     edges=net["edges"].format(kind=kind),
                     corpus=bundle("results/corpus"), layout=_layout_out(spec)["layout"].format(kind=kind))
    elif rule == "report":
        found.update(seeds="results/seed/manifest.json", chain="results/chain/manifest.json",
                     corpus="results/corpus/manifest.json", screening="results/corpus/screening.parquet",
                     prisma="results/corpus/prisma.json", works="results/corpus/works.parquet",
                     metrics=[f"results/networks/{k}/metrics.json" for k in kinds(spec)],
                     stability=[_stability_out(spec)["stability"].format(kind=k) for k in kinds(spec)],
                     nodes=[f"results/networks/{k}/nodes.parquet" for k in kinds(spec)],
                     edges=[f"results/networks/{k}/edges.parquet" for k in kinds(spec)],
                     layouts=[f"results/layouts/{k}/layout.parquet" for k in kinds(spec)])
        if _universe_source(spec):
            found["sources"] = f"{SOURCES}/manifest.json"
        if _simulate_wanted(spec):
            found["simulation"] = [_simulate_out(spec)[k] for k in ("table", "summary")]
        if _time_wanted(spec):
            found["trends"] = flat(_trends_out(spec))
            found["slices"] = [f"{SLICES}/{name}.parquet".format(kind=k) for k in _sliced(spec)
                               for name in SLICE_TABLES]
    return found


def _known_years(spec: dict) -> list[str]:
    """The tables that know the years of cited works (RPYS), the best first: the pool, the cited works'
    metadata (with a co-citation network), the source's universe and its cited references."""
    known = ["results/chain/pool/works.parquet"]
    if _cited_wanted(spec):
        known.append(CITED_WORKS)
    if _universe_source(spec):
        known += [f"{SOURCES}/works.parquet", f"{SOURCES}/cited.parquet"]
    return known


def outputs(spec: dict, rule: str, kind: str | None = None) -> dict[str, Any]:
    """A job's named outputs; `kind` is the value of the rule's wildcard (a network kind, a partition),
    and with None a rule keeps its `{kind}` or `{part}` templates."""
    named = RULES[rule].outputs(spec)
    if kind is None:
        return named
    value = {RULES[rule].wildcard: kind}
    return {k: [p.format(**value) for p in v] if isinstance(v, list) else v.format(**value)
            for k, v in named.items()}


def params(spec: dict, rule: str, kind: str | None = None) -> str:
    """The canonical JSON of the spec a job is given: it re-runs exactly when this text changes."""
    if rule == "network":   # naming the clusters is the clusters job's, their stability the stability job's
        return canonical_json({"network": spec["networks"][kind],
                               "communities": without_stability(detection(spec["communities"])),
                               "metrics": spec["metrics"], "kind": kind})
    if rule == "stability":   # other seeds' runs of the network job's algorithm on its graph
        return canonical_json({"communities": detection(spec["communities"]), "kind": kind})
    if rule == "clusters":   # the network's parameters say which works an item network's members are
        return canonical_json({"labels": spec["communities"]["labels"], "network": spec["networks"][kind],
                               "kind": kind})
    if rule in ("sources", "snapshot_part") and _snapshot_source(spec):   # the selection, not where it lies
        selection = {k: v for k, v in spec["source"]["snapshot"].items()   # an unset criterion is no criterion
                     if k != "path" and v is not None and v != []}
        return canonical_json({"source": {"kind": "snapshot", "snapshot": selection}, "strict": spec["strict"]})
    if rule == "sources":   # what the files are, not how OpenAlex would be asked
        source = spec["source"]
        asked = {"openalex": source["openalex"]} if source["resolve"] == "openalex" else {}
        return canonical_json({"source": {"files": source["files"], "formats": source["formats"],
                                          "resolve": source["resolve"], "thesaurus": source["thesaurus"], **asked},
                               "strict": spec["strict"]})
    if rule == "trends":   # terms are counted in the keyword network's field
        time = spec["time"]
        field = spec["networks"].get("keywords", {}).get("field", "auto")
        return canonical_json({"time": {k: time[k] for k in ("range", "bursts", "rpys", "networks")},
                               "terms_field": field, "networks": kinds(spec)})
    if rule == "slices":
        time = spec["time"]
        return canonical_json({"network": spec["networks"][kind], "communities": detection(spec["communities"]),
                               "metrics": spec["metrics"], "kind": kind,
                               "time": {k: time[k] for k in ("range", "slice_years", "alignment")}})
    if rule == "export":   # the bibliography finds a work's items as the network did
        return canonical_json({"export": spec["export"], "network": spec["networks"][kind]})
    if rule == "corpus":   # PRISMA records where the stopping rule first said stop
        return canonical_json({"filter": spec["filter"], "stopping": spec["screening"]["stopping"]})
    if rule == "cited":   # the co-citation threshold says which cited works are nodes
        return canonical_json({**{key: spec[key] for key in RULES[rule].spec_keys},
                               "min_citing": spec["networks"]["cocitation"]["min_occurrences"]})
    return canonical_json({key: spec[key] for key in RULES[rule].spec_keys})


def targets(spec: dict, phase: str = "all") -> list[str]:
    """Every output of every job up to `phase` (all: the whole review). Snakemake checks only the
    outputs something asks for, so a target must ask for each one: a deleted file nobody reads (a
    manifest, an export) is then missing, and its job runs again."""
    last = PHASES.index(phase) if phase in PHASES else len(PHASES) - 1
    wanted = {rule.name for rule in RULES.values() if PHASES.index(rule.phase) <= last}
    return [p for job in jobs(spec) if job.rule in wanted for p in flat(job.outputs)]


def flat(named: dict[str, Any]) -> list[str]:
    """The paths of a named input or output dict, in a fixed order."""
    out: list[str] = []
    for value in named.values():
        out.extend(value if isinstance(value, list) else [value])
    return out


@dataclass(frozen=True)
class Job:
    """One job of the DAG: `network:coupling`, `export:keywords`, `snapshot_part:2024-01-01.part_000`,
    `corpus`, …; `kind` is the value of the rule's wildcard (a network kind or a partition key)."""

    name: str
    rule: str
    kind: str | None
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    params: str

    @property
    def manifest(self) -> str:
        return self.outputs["manifest"]


def jobs(spec: dict, root: str | Path = ".") -> list[Job]:
    """Every job the spec asks for, in DAG order (per-kind jobs by kind, per-partition ones oldest first)."""
    found = []
    for rule in RULES.values():
        if not rule.wanted(spec):
            continue
        values = ((rule.kinds or kinds)(spec) if rule.per_kind else partitions(spec, root) if rule.per_part
                  else [None])
        for kind in values:
            name = f"{rule.name}:{kind}" if kind else rule.name
            found.append(Job(name, rule.name, kind, inputs(spec, rule.name, kind, root),
                             outputs(spec, rule.name, kind), params(spec, rule.name, kind)))
    return found
