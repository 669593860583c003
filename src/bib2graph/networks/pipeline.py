"""`build`: a corpus Bundle to a `Network`, through counting, normalisation, clusters and metrics."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..cited import META, work_metadata
from ..tables import Bundle, conform, empty
from . import communities as _communities
from .builders import BUILDERS
from .coding import coded_frame
from .evidence import EVIDENCE_MAX_ROWS, build_evidence
from .cluster_table import DOCUMENT_KINDS, cluster_table, local_citations, silhouette
from .beside import FORK_MAX_EDGES, FORK_MIN_EDGES, beside, spare_core
from .metrics import eigenvector, network_summary, node_metrics, tidy
from .normalize import FORMULAS, normalize
from .cluster_names import name_clusters
from .params import resolve_communities, resolve_labels, resolve_metrics, resolve_params, without_stability
from .network import Network
from .schema import EDGES, EVIDENCE, NODES
from .timing import stopwatch
from .work_labels import name_work_nodes

#: kinds whose nodes are works, labelled "First author (year) title"
WORK_KINDS = ("coupling", "cocitation", "citation")

DEFINITIONS = {
    "coupling": "Bibliographic coupling. Nodes: corpus works d with s_d = |R(d)| >= min_occurrences, R(d) the "
                "works d references. Edge (a, b) when c_ab = |R(a) & R(b)| >= min_weight.",
    "cocitation": "Co-citation. Nodes: works x cited by the corpus with s_x = #{corpus works citing x} >= "
                  "min_occurrences. Edge (x, y) when c_xy = #{corpus works citing both x and y} >= min_weight.",
    "citation": "Direct citation (directed). Nodes: corpus works d with s_d = #{corpus works citing d} >= "
                "min_occurrences. Arc citing -> cited, count 1, for each reference between two node works "
                "(self-citations ignored).",
    "coauthorship": "Co-authorship. Nodes: authors (OpenAlex IDs) with s_x = #{works of x} >= min_occurrences. "
                    "Edge (x, y) when at least min_weight works contain both; c_xy = sum of w_d over those works.",
    "institutions": "Co-institution. Nodes: institutions with s_x = #{works of x} >= min_occurrences. "
                    "Edge (x, y) when at least min_weight works contain both; c_xy = sum of w_d over those works.",
    "keywords": "Co-word. Nodes: terms of the chosen field (after the thesaurus) with s_x = #{works with x} >= "
                "min_occurrences. Edge (x, y) when at least min_weight works contain both; c_xy = sum of w_d "
                "over those works.",
}
COUNTING_FORMULAS = {"full": "w_d = 1", "fractional": "w_d = 1 / (n_d - 1), n_d = number of distinct items of d"}


def definition(kind: str, params: dict) -> str:
    """The text of the network's definition, counting and normalisation formulas."""
    parts = [DEFINITIONS[kind]]
    if "counting" in params:
        parts.append(f"Counting {params['counting']}: {COUNTING_FORMULAS[params['counting']]}.")
    parts.append(f"Weight ({params['normalization']}): {FORMULAS[params['normalization']]}.")
    return " ".join(parts)


def _work_metadata(corpus: Bundle, cited: pd.DataFrame | None) -> pd.DataFrame:
    """Metadata of every work a node may be: the corpus's own, then the cited works' table for the rest."""
    own = work_metadata(corpus.works, corpus.authorships)
    if cited is None or cited.empty:
        return own
    return pd.concat([own, cited.loc[~cited["work_id"].isin(own["work_id"]), META]], ignore_index=True)


def build(kind: str, corpus: Bundle, params: dict | None = None, communities: dict | None = None, *,
          evidence_limit: int | None = EVIDENCE_MAX_ROWS, cited: pd.DataFrame | None = None,
          metrics: dict | None = None, timings: dict[str, float] | None = None, workers: int = 1,
          name: bool = True, stability: bool = True) -> Network:
    """Build the `kind` network of `corpus`: nodes, edges, evidence, clusters and metrics.

    Steps: items below ``min_occurrences`` are dropped before pairing; pairs are counted sparsely; edges
    whose raw count (under fractional counting: number of shared works) is below ``min_weight`` are
    dropped; the remaining edges are normalised; clusters are detected on the normalised weights;
    centralities are computed last. The evidence table is built last, and only when it has at most
    `evidence_limit` rows (None: always); otherwise it is empty and ``metrics["evidence"]`` says why
    (`edge_evidence` still gives the documents of any single edge). Work nodes are labelled "First
    author (year) title" from the corpus, else from `cited` (the `CITED` table of works outside it).
    `metrics` is the spec's section of that name: which costly node metrics are sampled or skipped.
    `timings`, when given, receives the seconds of each stage (benchmarks/bench_networks.py); `workers`
    is the threads the job may use (communities.detect). Clusters are named by `communities["labels"]`
    (`cluster_names`); `name` False leaves them unnamed, as the network job does (the clusters job
    names them, so that a change of labels never clusters again). `stability` False leaves the stability
    score out, with the settings that say how it is measured: the network job's (its own job measures it
    from the network's tables, phases.run_stability, so the network job never waits for other seeds' runs).
    """
    lap = stopwatch(timings)
    params = resolve_params(kind, params)
    label_settings = resolve_labels((communities or {}).get("labels"))
    community_params = resolve_communities(communities)
    metric_settings = resolve_metrics(metrics)
    raw = BUILDERS[kind](corpus, params)
    lap("counting")
    if kind in WORK_KINDS:
        raw.nodes = name_work_nodes(raw.nodes, _work_metadata(corpus, cited))
    n = len(raw.nodes)
    i, j, count = raw.source, raw.target, raw.count
    lap("labels")
    weight = normalize(i, j, count, raw.nodes["occurrences"].to_numpy(), params["normalization"])
    lap("normalisation")
    graph = _communities.undirected(n, i, j, weight, raw.directed)    # one graph for clusters and metrics
    lap("graph")
    others, eigen = _graph_only_work(n, i, j, weight, graph, community_params, metric_settings, workers, stability)
    clusters, report = _communities.detect(n, i, j, weight, community_params, graph, lap, others, stability)
    measures, notes = node_metrics(n, i, j, count, weight, raw.directed, community_params["seed"], graph,
                                   metric_settings, lap, eigen)
    summary = network_summary(n, i, j, count, weight, raw.directed, graph)
    del graph
    lap("summary")
    silhouettes = silhouette(n, i, j, weight, clusters)
    lap("silhouette")
    nodes = pd.concat([raw.nodes.reset_index(drop=True), measures], axis=1).assign(
        cluster=clusters, cluster_label=None, silhouette=silhouettes)
    nodes = conform(_year_is_mean_year(nodes), NODES)
    ids = raw.nodes["node_id"]
    in_node_order = nodes.set_index("node_id").reindex(ids).reset_index()   # conform sorted; codes follow ids
    citations = local_citations(ids, corpus.references) if kind in DOCUMENT_KINDS else None
    cluster_list = cluster_table(kind, in_node_order, i, j, weight, citations)
    sizes = np.bincount(clusters) if n else np.zeros(1, dtype=np.int64)
    singletons = int((sizes == 1).sum())
    lap("cluster_table")
    # the tables of string IDs last: at 41.6M edges the edge table is 1.3 GB beside the arrays
    edges = conform(coded_frame({"source": (ids, i), "target": (ids, j)}, {"count": count, "weight": weight}),
                    EDGES)
    lap("tables")
    table, evidence_report = build_evidence(raw, evidence_limit)
    evidence = conform(table, EVIDENCE[kind]) if table is not None else empty(EVIDENCE[kind])
    del table
    lap("evidence")
    record = {
        "kind": kind,
        "directed": raw.directed,
        "definition": definition(kind, params),
        "parameters": params,
        "communities": community_params if stability else without_stability(community_params),
        "metric_settings": metric_settings,
        "community_detection": report["implementation"],
        **summary,
        "modularity": report["modularity"],
        "quality": report["quality"],
        "silhouette": float(np.mean(silhouettes)) if silhouettes is not None else None,
        "n_clusters": int(nodes["cluster"].max()) if n else 0,
        "singleton_clusters": singletons,
        "clusters": cluster_list,
        **{key: report[key] for key in _communities.STABILITY_FIELDS if stability},
        **notes,
        "evidence": evidence_report,
        "notes": raw.notes,
    }
    if name:
        nodes, record = name_clusters(kind, nodes, record, corpus, label_settings, params)
        lap("cluster_labels")
    return Network(kind=kind, directed=raw.directed, nodes=nodes, edges=edges, evidence=evidence,
                   metrics=tidy(record))


def _graph_only_work(n: int, i: np.ndarray, j: np.ndarray, weight: np.ndarray, graph, community_params: dict,
                     metric_settings: dict, workers: int, stability: bool = True):
    """The stability score's other partitions (when `stability`) and eigenvector centrality, as functions
    giving them. The partitions need only the graph, so with two threads and a core to spare they run in a
    forked process beside the seed's clustering and PageRank (networks.beside); eigenvector centrality runs in
    the job, in its own stage: on a sparse matrix it costs less than a fork would save (0.4 s at 5.6M edges)."""
    def others():
        return _communities.other_partitions(graph, community_params, n)

    def eigen():
        return eigenvector(n, i, j, weight, graph, metric_settings["eigenvector"]["enabled"])

    if not stability or workers < 2 or not FORK_MIN_EDGES <= graph.ecount() <= FORK_MAX_EDGES or not spare_core():
        return others, eigen
    return beside(others)[0], eigen


def _year_is_mean_year(nodes: pd.DataFrame) -> pd.DataFrame:
    """A node with a year (a work, whichever table told its year) has it as its mean year; the others
    keep the builder's mean over their works."""
    year = pd.array(nodes["year"], dtype="Float64").to_numpy(dtype="float64", na_value=np.nan)
    mean = np.where(np.isnan(year), nodes["mean_year"].to_numpy(dtype="float64"), year)
    return nodes.assign(mean_year=mean)
