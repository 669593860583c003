"""The documents behind edges: the evidence table of every kept edge, and those of one edge on demand.

The table (one row per shared document of each kept edge, Σ c_ij rows) is built after counting, by
enumerating the pairs of each group (pairs.py), only when it has at most ``EVIDENCE_MAX_ROWS`` rows;
`edge_evidence` recomputes the documents behind one edge from the corpus by set intersection.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..tables import Bundle
from .coding import argsort_ids, coded_frame, corpus_rows
from .item_networks import item_rows
from .pairs import group_pairs
from .raw import Raw


#: The evidence table is built only when it has at most this many rows (it has Σ c_ij rows over the kept
#: edges, e.g. 42M for coupling of 100k works); above it the table is left empty and metrics say why.
EVIDENCE_MAX_ROWS = 5_000_000


#: The column naming the document behind an edge, per kind.
EVIDENCE_VIA = {"coupling": "reference_id", "cocitation": "citing_id", "citation": "citing_id",
                "coauthorship": "work_id", "institutions": "work_id", "keywords": "work_id"}


def build_evidence(raw: Raw, limit: int | None = EVIDENCE_MAX_ROWS) -> tuple[pd.DataFrame | None, dict]:
    """The evidence rows of the kept edges, sorted by (source, target, document), and a report.

    The table has ``raw.evidence_rows()`` rows (Σ over edges of their shared documents). Above `limit`
    (None = no limit) it is not built: the result is None and the report says so, with the reason.
    Otherwise the pairs of each group are enumerated in bounded blocks and matched to the kept edges,
    so the cost is that of the pair count itself and memory that of the table.
    """
    rows = raw.evidence_rows()
    report = {"rows": rows, "complete": True, "limit": limit, "reason": None}
    node_ids = raw.nodes["node_id"]
    if limit is not None and rows > limit:
        report.update(complete=False, reason=f"the evidence table would have {rows} rows, more than the "
                      f"limit of {limit}; it is written empty. Raise min_weight or min_occurrences, or ask "
                      f"for single edges with bib2graph.networks.edge_evidence")
        return None, report
    if raw.incidence is None:                                 # direct citation: the citing work itself
        return coded_frame({"source": (node_ids, raw.source), "target": (node_ids, raw.target),
                            "citing_id": (node_ids, raw.source)}), report
    n = np.int64(max(len(node_ids), 1))
    keys = raw.source * n + raw.target                        # increasing: edges are sorted by (i, j)
    matrix = sp.csr_matrix(raw.incidence.matrix)
    if not matrix.has_canonical_format:
        matrix.sum_duplicates()
    edge_parts, group_parts = [], []
    if len(keys):
        for g, a, b in group_pairs(matrix):
            pair = a * n + b
            edge = np.minimum(np.searchsorted(keys, pair), len(keys) - 1)
            hit = keys[edge] == pair
            edge_parts.append(edge[hit])
            group_parts.append(g[hit])
    edge = np.concatenate(edge_parts) if edge_parts else np.zeros(0, dtype=np.int64)
    group = np.concatenate(group_parts) if group_parts else np.zeros(0, dtype=np.int64)
    assert len(edge) == rows, (len(edge), rows)
    used, inverse = np.unique(group, return_inverse=True)     # rank the groups used by their IDs
    names = raw.incidence.group_ids[used]
    rank = np.empty(len(used), dtype=np.int64)
    rank[argsort_ids(names)] = np.arange(len(used), dtype=np.int64)
    order = np.argsort(edge * np.int64(max(len(used), 1)) + rank[inverse.ravel()], kind="stable")
    edge, group = edge[order], group[order]
    return coded_frame({"source": (node_ids, raw.source[edge]), "target": (node_ids, raw.target[edge]),
                        raw.incidence.via: (raw.incidence.group_ids, group)}), report


def _item_sets(kind: str, corpus: Bundle, params: dict | None) -> pd.DataFrame:
    """``(work_id, item_id)`` rows of an item kind, as its builder reads them."""
    return item_rows(kind, corpus, params)[0][["work_id", "item_id"]]


def edge_evidence(kind: str, corpus: Bundle, source: str, target: str,
                  params: dict | None = None) -> pd.DataFrame:
    """The documents behind the edge ``(source, target)``, recomputed from the corpus by set intersection.

    Rows and order are those the evidence table holds for that edge (columns ``source``, ``target`` and
    ``reference_id``, ``citing_id`` or ``work_id``); an edge that does not exist has none. Only
    ``field`` and ``thesaurus`` of `params` matter (keywords); thresholds do not change an edge's documents.
    """
    via = EVIDENCE_VIA[kind]
    works = corpus.works["work_id"]
    if kind in ("coupling", "cocitation", "citation"):
        refs = corpus_rows(corpus, "references")
        if kind == "coupling":
            found = set(refs.loc[refs["work_id"] == source, "referenced_id"]) \
                & set(refs.loc[refs["work_id"] == target, "referenced_id"])
        elif kind == "cocitation":
            found = set(refs.loc[refs["referenced_id"] == source, "work_id"]) \
                & set(refs.loc[refs["referenced_id"] == target, "work_id"])
        else:
            cites = ((refs["work_id"] == source) & (refs["referenced_id"] == target)).any()
            found = {source} if cites and source != target and (works == target).any() else set()
    else:
        rows = _item_sets(kind, corpus, params)
        found = set(rows.loc[rows["item_id"] == source, "work_id"]) \
            & set(rows.loc[rows["item_id"] == target, "work_id"]) if source != target else set()
    docs = sorted(str(d) for d in found)
    return pd.DataFrame({"source": pd.Series([source] * len(docs), dtype="str"),
                         "target": pd.Series([target] * len(docs), dtype="str"),
                         via: pd.Series(docs, dtype="str")})
