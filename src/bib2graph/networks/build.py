"""Network construction: corpus tables → a sorted node table and an integer-coded edge list.

Every builder follows one recipe so that results are exact, deterministic and sparse:

1. take an incidence table of distinct ``(group, member)`` pairs from the corpus (for coupling a group is
   a cited reference and members are the citing works; for co-occurrence networks a group is a work and
   members are its authors, institutions or terms);
2. count each member's occurrences and drop members below ``min_occurrences`` *before* pairing;
3. code members by their position in the sorted array of unique IDs (so that code order is ID order and
   ``source < target`` holds for every undirected edge);
4. count pairs with a sparse product ``C = Aᵀ W A`` of the groups × members incidence matrix ``A``
   (``W`` = diagonal group weights: 1, or ``1/(n_g − 1)`` for fractional counting), keep the strict upper
   triangle and drop pairs whose count is below ``min_weight``.

Memory is proportional to the number of non-zero pairs; no dense n × n matrix is ever built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..atomic import sha256_file
from ..errors import DataError
from ..tables import Bundle

#: OpenAlex's constant topic triple, assigned to ~22M mostly non-English works regardless of content.
TOPIC_TRIPLE = frozenset({"T14423", "T13154", "T14235"})

_COUNT_DIGITS = 12  # fractional counts are rounded to 12 significant digits to drop summation noise


@dataclass
class Raw:
    """A network before metrics: nodes sorted by ``node_id``; edges as codes into that order."""

    nodes: pd.DataFrame            # node_id, label, occurrences, year, doi, in_corpus
    source: np.ndarray             # int64 node codes
    target: np.ndarray
    count: np.ndarray              # float64 raw counts, > 0
    directed: bool = False
    evidence: pd.DataFrame | None = None
    notes: dict = field(default_factory=dict)


# ----------------------------------------------------------------------------------------------------
# Generic helpers


def round_sig(values: np.ndarray, digits: int) -> np.ndarray:
    """Round to `digits` significant digits, so that sums whose order could vary print the same."""
    x = np.asarray(values, dtype=np.float64).copy()
    ok = np.isfinite(x) & (x != 0)
    if ok.any():
        magnitude = np.floor(np.log10(np.abs(x[ok])))
        factor = 10.0 ** (digits - 1 - magnitude)
        x[ok] = np.round(x[ok] * factor) / factor
    return x


def corpus_view(corpus: Bundle) -> Bundle:
    """The bundle restricted to rows of works that are in `corpus.works`, so a stray row cannot add nodes."""
    ids = corpus.works["work_id"]
    tables = {}
    for name in ("authorships", "affiliations", "references", "terms"):
        df = getattr(corpus, name)
        tables[name] = df[df["work_id"].isin(ids)]
    return Bundle(works=corpus.works, **tables)


def _mode_label(df: pd.DataFrame, key: str, label: str) -> pd.Series:
    """For each `key`, its most frequent non-null `label` (ties: the smallest label)."""
    named = df.loc[df[label].notna(), [key, label]]
    if named.empty:
        return pd.Series(dtype=object, name=label)
    counts = named.groupby([key, label], sort=True).size().rename("n").reset_index()
    counts = counts.sort_values([key, "n", label], ascending=[True, False, True], kind="mergesort")
    return counts.drop_duplicates(key).set_index(key)[label]


def _work_nodes(corpus: Bundle, ids: pd.Index, occurrences: pd.Series) -> pd.DataFrame:
    """Node rows for works: title/year/doi for corpus works, the bare ID for works outside the corpus."""
    works = corpus.works.set_index("work_id")
    inside = ids.isin(works.index)
    meta = works.reindex(ids)
    labels = meta["title"].where(meta["title"].notna() & (meta["title"].astype(str).str.strip() != ""))
    return pd.DataFrame({
        "node_id": ids.astype(str),
        "label": labels.fillna(pd.Series(ids, index=ids)).astype(str).to_numpy(),
        "occurrences": occurrences.reindex(ids).fillna(0).astype("int64").to_numpy(),
        "year": pd.array(meta["year"].to_numpy(), dtype="Int64"),
        "doi": meta["doi"].astype(object).where(meta["doi"].notna(), None).to_numpy(),
        "in_corpus": np.asarray(inside, dtype=bool),
    })


def _item_nodes(ids: pd.Index, occurrences: pd.Series, labels: pd.Series) -> pd.DataFrame:
    """Node rows for authors, institutions and terms (never corpus works themselves)."""
    named = labels.reindex(ids)
    return pd.DataFrame({
        "node_id": ids.astype(str),
        "label": named.fillna(pd.Series(ids, index=ids)).astype(str).to_numpy(),
        "occurrences": occurrences.reindex(ids).fillna(0).astype("int64").to_numpy(),
        "year": pd.array([pd.NA] * len(ids), dtype="Int64"),
        "doi": np.full(len(ids), None, dtype=object),
        "in_corpus": np.zeros(len(ids), dtype=bool),
    })


def cooccurrence(groups: np.ndarray, members: np.ndarray, n_members: int,
                 group_weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count member pairs sharing a group: the strict upper triangle of ``Aᵀ W A``.

    `groups` and `members` are integer codes of distinct incidences; `group_weight`, indexed by group
    code, is the contribution of one group to each of its pairs (None = 1 each, exact integers).
    Returns ``(i, j, c)`` sorted by ``(i, j)`` with ``i < j``.
    """
    n_groups = int(groups.max()) + 1 if len(groups) else 0
    ones = np.ones(len(groups), dtype=np.int64)
    a = sp.csr_matrix((ones, (groups, members)), shape=(n_groups, n_members))
    if group_weight is None:
        product = a.T.tocsr() @ a
    else:
        weighted = sp.csr_matrix((group_weight[groups], (groups, members)), shape=(n_groups, n_members))
        product = a.T.tocsr() @ weighted
    upper = sp.triu(product, k=1).tocoo()
    keep = upper.data != 0
    i, j, c = upper.row[keep].astype(np.int64), upper.col[keep].astype(np.int64), upper.data[keep]
    order = np.lexsort((j, i))
    c = c[order].astype(np.float64)
    if group_weight is not None:
        c = round_sig(c, _COUNT_DIGITS)
    return i[order], j[order], c


def pairs_within_groups(groups: np.ndarray, members: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair ``(a < b)`` of members sharing a group, with the group: ``(g, a, b)``, vectorised.

    Used for edge evidence; its length is Σ_g C(n_g, 2), the same as the total raw weight.
    """
    order = np.lexsort((members, groups))
    g, m = groups[order], members[order]
    if len(g) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    sizes = np.diff(np.r_[starts, len(g)])
    position = np.arange(len(g)) - np.repeat(starts, sizes)
    later = np.repeat(sizes, sizes) - position - 1
    first = np.repeat(np.arange(len(g)), later)
    run_start = np.repeat(np.cumsum(later) - later, later)
    second = first + 1 + (np.arange(len(first)) - run_start)
    return g[first], m[first], m[second]


def _keep_edges(i, j, c, min_weight: float):
    keep = c >= min_weight
    return i[keep], j[keep], c[keep]


def _evidence(groups: np.ndarray, group_ids: np.ndarray, members: np.ndarray, node_ids: np.ndarray,
              i: np.ndarray, j: np.ndarray, via: str) -> pd.DataFrame:
    """One row per (edge, shared group) for the kept edges, sorted by (source, target, via)."""
    g, a, b = pairs_within_groups(groups, members)
    n = np.int64(max(len(node_ids), 1))
    kept = np.sort(i * n + j)
    mask = np.isin(a * n + b, kept, assume_unique=False)
    g, a, b = g[mask], a[mask], b[mask]
    order = np.lexsort((g, b, a))
    g, a, b = g[order], a[order], b[order]
    return pd.DataFrame({"source": node_ids[a], "target": node_ids[b], via: group_ids[g]})


def _fractional_weights(sizes: np.ndarray) -> np.ndarray:
    """``1/(n_g − 1)`` per group (0 for single-member groups, which make no pairs anyway)."""
    sizes = sizes.astype(np.float64)
    return np.divide(1.0, sizes - 1.0, out=np.zeros_like(sizes), where=sizes > 1)


# ----------------------------------------------------------------------------------------------------
# Work-based networks


def _references(corpus: Bundle) -> pd.DataFrame:
    return corpus.references[["work_id", "referenced_id"]].drop_duplicates()


def build_coupling(corpus: Bundle, params: dict) -> Raw:
    """Bibliographic coupling: nodes are corpus works; ``c(a, b) = |R(a) ∩ R(b)|``.

    R(d) is the set of works referenced by corpus work d (inside or outside the corpus);
    occurrences ``s_d = |R(d)|``. Every corpus work with ``s_d ≥ min_occurrences`` is a node, isolated or
    not. Evidence: one row ``(source, target, reference_id)`` per shared reference of each kept edge.
    """
    corpus = corpus_view(corpus)
    refs = _references(corpus)
    occurrences = refs.groupby("work_id").size()
    all_ids = pd.Index(np.sort(corpus.works["work_id"].astype(str).unique()))
    occ = occurrences.reindex(all_ids).fillna(0)
    ids = all_ids[(occ >= params["min_occurrences"]).to_numpy()]
    nodes = _work_nodes(corpus, ids, occurrences)
    inc = refs[refs["work_id"].isin(ids)]
    members = ids.get_indexer(inc["work_id"]).astype(np.int64)
    groups, group_ids = pd.factorize(inc["referenced_id"], sort=True)
    i, j, c = _keep_edges(*cooccurrence(groups.astype(np.int64), members, len(ids)), params["min_weight"])
    evidence = _evidence(groups.astype(np.int64), np.asarray(group_ids, dtype=object), members,
                         np.asarray(ids, dtype=object), i, j, "reference_id")
    return Raw(nodes, i, j, c, evidence=evidence)


def build_cocitation(corpus: Bundle, params: dict) -> Raw:
    """Co-citation: nodes are works cited by the corpus; ``c(x, y)`` = number of corpus works citing both.

    Occurrences ``s_x`` = number of corpus works citing x. Cited works may lie outside the corpus
    (``in_corpus`` false; their label is their ID). Evidence: one row ``(source, target, citing_id)`` per
    corpus work citing both ends of a kept edge.
    """
    corpus = corpus_view(corpus)
    refs = _references(corpus)
    occurrences = refs.groupby("referenced_id").size()
    ids = pd.Index(np.sort(occurrences.index[occurrences.to_numpy() >= params["min_occurrences"]]
                           .astype(str).to_numpy()))
    nodes = _work_nodes(corpus, ids, occurrences)
    inc = refs[refs["referenced_id"].isin(ids)]
    members = ids.get_indexer(inc["referenced_id"]).astype(np.int64)
    groups, group_ids = pd.factorize(inc["work_id"], sort=True)
    i, j, c = _keep_edges(*cooccurrence(groups.astype(np.int64), members, len(ids)), params["min_weight"])
    evidence = _evidence(groups.astype(np.int64), np.asarray(group_ids, dtype=object), members,
                         np.asarray(ids, dtype=object), i, j, "citing_id")
    return Raw(nodes, i, j, c, evidence=evidence)


def build_citation(corpus: Bundle, params: dict) -> Raw:
    """Direct citation: a directed edge ``citing → cited`` (count 1) for each reference between corpus works.

    Self-citations are ignored. Occurrences ``s_d`` = number of corpus works citing d (its local citation
    count). Every corpus work with ``s_d ≥ min_occurrences`` is a node, isolated or not.
    """
    corpus = corpus_view(corpus)
    refs = _references(corpus)
    refs = refs[refs["referenced_id"].isin(corpus.works["work_id"]) & (refs["referenced_id"] != refs["work_id"])]
    occurrences = refs.groupby("referenced_id").size()
    all_ids = pd.Index(np.sort(corpus.works["work_id"].astype(str).unique()))
    ids = all_ids[(occurrences.reindex(all_ids).fillna(0) >= params["min_occurrences"]).to_numpy()]
    nodes = _work_nodes(corpus, ids, occurrences)
    src = ids.get_indexer(refs["work_id"]).astype(np.int64)
    dst = ids.get_indexer(refs["referenced_id"]).astype(np.int64)
    keep = (src >= 0) & (dst >= 0)
    src, dst = src[keep], dst[keep]
    order = np.lexsort((dst, src))
    i, j, c = _keep_edges(src[order], dst[order], np.ones(len(order)), params["min_weight"])
    node_ids = np.asarray(ids, dtype=object)
    evidence = pd.DataFrame({"source": node_ids[i], "target": node_ids[j], "citing_id": node_ids[i]})
    return Raw(nodes, i, j, c, directed=True, evidence=evidence)


# ----------------------------------------------------------------------------------------------------
# Co-occurrence networks of items (authors, institutions, terms)


def build_items(incidence: pd.DataFrame, labels: pd.Series, params: dict) -> Raw:
    """Co-occurrence of items in works: ``c(x, y) = Σ_{d ∋ x, y} w_d``.

    `incidence` holds distinct ``(work_id, item_id)`` rows. Full counting: ``w_d = 1`` (c = number of
    shared works). Fractional counting: ``w_d = 1/(|I(d)| − 1)``, where |I(d)| counts *all* distinct items
    of d before the ``min_occurrences`` filter, so that each work adds at most 1 to any item's total link
    strength. Occurrences ``s_x`` = number of works of x (an integer under both countings).
    ``min_weight`` applies to the number of shared works (= the count under full counting), so that a
    threshold means the same under both countings.
    """
    incidence = incidence.drop_duplicates()
    occurrences = incidence.groupby("item_id").size()
    ids = pd.Index(np.sort(occurrences.index[occurrences.to_numpy() >= params["min_occurrences"]]
                           .astype(str).to_numpy()))
    nodes = _item_nodes(ids, occurrences, labels)
    groups_all, work_ids = pd.factorize(incidence["work_id"], sort=True)
    sizes = np.bincount(groups_all) if len(groups_all) else np.zeros(0, dtype=np.int64)
    keep = incidence["item_id"].isin(ids).to_numpy()
    groups = groups_all[keep].astype(np.int64)
    members = ids.get_indexer(incidence["item_id"][keep]).astype(np.int64)
    i, j, shared = cooccurrence(groups, members, len(ids))
    keep = shared >= params["min_weight"]           # the threshold counts works, whatever the counting
    if params.get("counting") == "fractional":
        fi, fj, c = cooccurrence(groups, members, len(ids), _fractional_weights(sizes))
        assert np.array_equal(fi, i) and np.array_equal(fj, j)   # same pairs: every shared group has n ≥ 2
    else:
        c = shared
    evidence = _evidence(groups, np.asarray(work_ids, dtype=object), members, np.asarray(ids, dtype=object),
                         i[keep], j[keep], "work_id")
    return Raw(nodes, i[keep], j[keep], c[keep], evidence=evidence)


def build_coauthorship(corpus: Bundle, params: dict) -> Raw:
    """Co-authorship: nodes are authors (OpenAlex author IDs; authorships without an ID are skipped)."""
    corpus = corpus_view(corpus)
    a = corpus.authorships[corpus.authorships["author_id"].notna()]
    incidence = pd.DataFrame({"work_id": a["work_id"], "item_id": a["author_id"]})
    labels = _mode_label(a, "author_id", "author_name")
    return build_items(incidence, labels, params)


def build_institutions(corpus: Bundle, params: dict) -> Raw:
    """Co-institution: nodes are institutions; I(d) = distinct institutions of any author of work d."""
    corpus = corpus_view(corpus)
    a = corpus.affiliations
    incidence = pd.DataFrame({"work_id": a["work_id"], "item_id": a["institution_id"]})
    labels = _mode_label(a, "institution_id", "institution_name")
    return build_items(incidence, labels, params)


def select_terms(terms: pd.DataFrame, field_name: str) -> tuple[pd.DataFrame, int]:
    """Rows of the chosen term field; ``auto`` = a work's keywords if it has any, else its concepts.

    On ``topics``, a work whose topics are exactly OpenAlex's constant triple loses them. Returns the
    rows and the number of works so guarded.
    """
    if field_name == "auto":
        keyed = terms.loc[terms["field"] == "keywords", "work_id"].unique()
        chosen = (terms["field"] == "keywords") | ((terms["field"] == "concepts") & ~terms["work_id"].isin(keyed))
        return terms[chosen], 0
    rows = terms[terms["field"] == field_name]
    if field_name != "topics" or rows.empty:
        return rows, 0
    per_work = rows.groupby("work_id")["term_id"].agg(["size", lambda s: s.isin(TOPIC_TRIPLE).sum()])
    per_work.columns = ["n", "triple"]
    guarded = per_work.index[(per_work["n"] == 3) & (per_work["triple"] == 3)]
    return rows[~rows["work_id"].isin(guarded)], int(len(guarded))


def read_thesaurus(path: str | Path) -> pd.DataFrame:
    """A TSV with header ``term_id<TAB>replace_by``; an empty ``replace_by`` drops the term."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"thesaurus {path} does not exist", code="THESAURUS_MISSING")
    table = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, comment=None)
    if list(table.columns[:2]) != ["term_id", "replace_by"]:
        raise DataError(f"thesaurus {path} must start with the header 'term_id<TAB>replace_by', "
                        f"found {list(table.columns)!r}", code="THESAURUS_INVALID")
    table = table[["term_id", "replace_by"]].apply(lambda s: s.str.strip())
    table = table[table["term_id"] != ""]
    clashes = table.groupby("term_id")["replace_by"].nunique()
    if (clashes > 1).any():
        raise DataError(f"thesaurus {path} maps {clashes.index[clashes > 1][0]!r} to several terms",
                        code="THESAURUS_INVALID")
    return table.drop_duplicates("term_id")


def apply_thesaurus(rows: pd.DataFrame, thesaurus: pd.DataFrame, all_terms: pd.DataFrame) -> pd.DataFrame:
    """Replace term IDs once (not transitively); a replaced row takes the label of its new ID."""
    mapping = thesaurus.set_index("term_id")["replace_by"]
    hit = rows["term_id"].isin(mapping.index)
    new_ids = rows["term_id"].where(~hit, rows["term_id"].map(mapping))
    rows = rows.assign(term_id=new_ids, term=rows["term"].where(~hit, None))
    rows = rows[rows["term_id"] != ""]
    known = _mode_label(all_terms, "term_id", "term")
    missing = rows["term"].isna()
    fallback = rows.loc[missing, "term_id"].map(known)
    rows.loc[missing, "term"] = fallback.where(fallback.notna(), rows.loc[missing, "term_id"])
    return rows


def build_keywords(corpus: Bundle, params: dict) -> Raw:
    """Co-word: nodes are terms of the chosen field (keywords, topics, concepts or auto), after the thesaurus."""
    corpus = corpus_view(corpus)
    rows, guarded = select_terms(corpus.terms, params["field"])
    notes: dict = {"topic_triple_guarded_works": guarded} if params["field"] == "topics" else {}
    if params.get("thesaurus"):
        thesaurus = read_thesaurus(params["thesaurus"])
        rows = apply_thesaurus(rows, thesaurus, corpus.terms)
        notes["thesaurus_sha256"] = sha256_file(params["thesaurus"])
        notes["thesaurus_entries"] = int(len(thesaurus))
    incidence = pd.DataFrame({"work_id": rows["work_id"], "item_id": rows["term_id"]})
    raw = build_items(incidence, _mode_label(rows, "term_id", "term"), params)
    raw.notes.update(notes)
    return raw


BUILDERS = {
    "coupling": build_coupling,
    "cocitation": build_cocitation,
    "citation": build_citation,
    "coauthorship": build_coauthorship,
    "institutions": build_institutions,
    "keywords": build_keywords,
}


__all__ = ["BUILDERS", "Raw", "TOPIC_TRIPLE", "cooccurrence", "pairs_within_groups", "round_sig",
           "read_thesaurus", "select_terms"]
