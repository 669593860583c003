"""`evidence`: the documents behind one edge — why two nodes are linked.

Coupling: the references the two works share; co-citation: the corpus works citing both; citation: the
citing work; co-authorship, institutions, keywords: the works holding both. They come from the network's
stored evidence table when the network phase built it whole (`metrics.evidence.complete`), else they are
computed on demand from the corpus tables by set intersection (`networks.edge_evidence`, the same rows).
For undirected kinds the order of the two nodes does not matter: the answer names the edge as stored
(`source` < `target`). Each document carries whatever record the workspace holds for it: the pooled
work's metadata, else (a reference outside the pool) the cited works' table's, else the label a network
gives that node.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import query
from ..errors import DataError
from ..ids import short_id
from ..networks.evidence import EVIDENCE_VIA
from ..spec import resolve_path
from ..tables import BUNDLE_TABLES, Bundle, empty, read_table
from .network_view import network_folder, read_metrics
from .result import Result
from .workspace import Workspace


def find_edge(folder: Path, kind: str, directed: bool, source: str, target: str) -> dict[str, Any]:
    """The stored edge between the two nodes (either order unless directed); none is UNKNOWN_EDGE. The
    IDs as given first, then in OpenAlex's short form (``https://openalex.org/W1``, ``w1`` → ``W1``), as
    `inspect` and `accept` read them; a node ID that only looks like one (a term "p53") is found as given."""
    found = _edges(folder, directed, source, target)
    short = (short_id(source) or source, short_id(target) or target)
    if not found and short != (source, target):
        found = _edges(folder, directed, *short)
    if not found:
        how = f"no arc {source} → {target} (citing → cited)" if directed else f"no edge between {source} and {target}"
        raise DataError(f"the {kind} network has {how}", code="UNKNOWN_EDGE",
                        details={"kind": kind, "source": source, "target": target})
    return found[0]


def _edges(folder: Path, directed: bool, source: str, target: str) -> list[dict[str, Any]]:
    pairs = [[source, target]] if directed else [[source, target], [target, source]]
    return query.records("SELECT source, target, weight, count FROM read_parquet(?) "
                         "WHERE list_contains(?, [source, target]) ORDER BY source, target",
                         [str(folder / "edges.parquet"), pairs])


def _stored(folder: Path, kind: str, edge: dict[str, Any]) -> list[str]:
    via = EVIDENCE_VIA[kind]
    return [r[0] for r in query.rows(f'SELECT "{via}" FROM read_parquet(?) WHERE source = ? AND target = ? '
                                     f'ORDER BY "{via}"',
                                     [str(folder / "evidence.parquet"), edge["source"], edge["target"]])]


NEEDS = {"coupling": "references", "cocitation": "references", "citation": "references",
         "coauthorship": "authorships", "institutions": "affiliations", "keywords": "terms"}


def corpus_for(ws: Workspace, kind: str) -> Bundle:
    """The corpus tables one kind's evidence reads (works and one other), the rest left empty:
    reading and checking every table of a large corpus would cost more than the intersection."""
    folder = ws.path("results/corpus")
    tables = {name: empty(schema) for name, schema in BUNDLE_TABLES.items()}
    for name in ("works", NEEDS[kind]):
        tables[name] = read_table(folder / f"{name}.parquet", BUNDLE_TABLES[name])
    return Bundle(**tables)


def _on_demand(ws: Workspace, kind: str, metrics: dict[str, Any], edge: dict[str, Any]) -> list[str]:
    from ..networks import edge_evidence

    params = dict(metrics.get("parameters") or {})
    if params.get("thesaurus"):
        params["thesaurus"] = str(resolve_path(ws.root, params["thesaurus"]))
    corpus = corpus_for(ws, kind)
    rows = edge_evidence(kind, corpus, edge["source"], edge["target"], params)
    return rows[EVIDENCE_VIA[kind]].astype(str).tolist()


CITED_WORKS = "results/chain/cited/works.parquet"   # metadata of cited works outside the pool, when collected
CITED_COLUMNS = ("work_id", "title", "year", "doi", "venue", "first_author")


def describe_works(ws: Workspace, ids: list[str]) -> list[dict[str, Any]]:
    """Each ID's record, in the given order: pooled works with their metadata; cited works outside the
    pool from the cited works' table (first author only); others with the label, year and DOI a
    network's node table holds; else the bare ID."""
    if not ids:
        return []
    pool = ws.path("results/chain/pool")
    corpus = ws.path("results/corpus/works.parquet")
    known: dict[str, dict[str, Any]] = {}
    if (pool / "works.parquet").is_file():
        in_corpus = "w.work_id IN (SELECT work_id FROM read_parquet(?))" if corpus.is_file() else "false"
        params = [str(pool / "authorships.parquet"), *([str(corpus)] if corpus.is_file() else []),
                  str(pool / "works.parquet"), ids]     # in the order of the placeholders
        for row in query.records(f"""
                SELECT w.work_id, w.title, w.year, w.doi, w.venue,
                       coalesce((SELECT list(a.author_name ORDER BY a.position) FROM read_parquet(?) a
                                 WHERE a.work_id = w.work_id), []) AS authors, {in_corpus} AS in_corpus
                FROM read_parquet(?) w WHERE w.work_id IN (SELECT unnest(?::VARCHAR[]))""", params):
            known[row["work_id"]] = {**row, "authors": [a for a in row["authors"] if a], "label": row["title"]}
    missing = [i for i in ids if i not in known]
    cited = ws.path(CITED_WORKS)
    if missing and cited.is_file() and set(CITED_COLUMNS) <= set(query.columns(cited)):
        for row in query.records("SELECT work_id, title, year, doi, venue, first_author FROM read_parquet(?) "
                                 "WHERE work_id IN (SELECT unnest(?::VARCHAR[]))", [str(cited), missing]):
            known[row["work_id"]] = {**{k: row[k] for k in ("work_id", "title", "year", "doi", "venue")},
                                     "authors": [row["first_author"]] if row["first_author"] else [],
                                     "in_corpus": False, "label": row["title"]}
        missing = [i for i in missing if i not in known]
    for nodes in sorted(ws.path("results/networks").glob("*/nodes.parquet")) if missing else []:
        for row in query.records("SELECT node_id, label, year, doi FROM read_parquet(?) "
                                 "WHERE node_id IN (SELECT unnest(?::VARCHAR[])) AND label <> node_id", [str(nodes), missing]):
            known.setdefault(row["node_id"], {"work_id": row["node_id"], "title": None, "year": row["year"],
                                              "doi": row["doi"], "venue": None, "authors": [],
                                              "in_corpus": False, "label": row["label"]})
    return [known.get(i) or {"work_id": i, "title": None, "year": None, "doi": None, "venue": None,
                             "authors": [], "in_corpus": False, "label": None} for i in ids]


def edge_evidence(ws: Workspace, kind: str, source: str, target: str) -> Result:
    """The documents behind the edge between `source` and `target` in the `kind` network."""
    folder = network_folder(ws, kind)
    metrics = read_metrics(folder)
    directed = bool(metrics.get("directed"))
    edge = find_edge(folder, kind, directed, source.strip(), target.strip())
    stored = bool((metrics.get("evidence") or {}).get("complete")) and (folder / "evidence.parquet").is_file()
    docs = _stored(folder, kind, edge) if stored else _on_demand(ws, kind, metrics, edge)
    data = {"workspace": ws.describe(), "kind": kind, "directed": directed, "source": edge["source"],
            "target": edge["target"], "weight": edge["weight"], "count": edge["count"],
            "documents": describe_works(ws, docs), "computed": "stored" if stored else "on_demand"}
    return Result(data=data, warnings=ws.warnings())
