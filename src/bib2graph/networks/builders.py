"""Network construction: corpus tables → a sorted node table and an integer-coded edge list.

Every builder follows one recipe so that results are exact, deterministic and sparse:

1. take an incidence table of distinct ``(group, member)`` pairs from the corpus (for coupling a group is
   a cited reference and members are the citing works; for co-occurrence networks a group is a work and
   members are its authors, institutions or terms), as integer codes: each distinct string is hashed once
   and everything after that works on integer arrays;
2. count each member's occurrences and drop members below ``min_occurrences`` *before* pairing;
3. code members by their position in the sorted array of unique IDs (so that code order is ID order and
   ``source < target`` holds for every undirected edge);
4. count pairs with a sparse product ``C = Aᵀ W A`` of the groups × members incidence matrix ``A``
   (``W`` = diagonal group weights: 1, or ``1/(n_g − 1)`` for fractional counting), keep the strict upper
   triangle and drop pairs whose count is below ``min_weight``.

Memory is proportional to the number of non-zero pairs; no dense n × n matrix is ever built. Counting
does not enumerate the pairs behind each edge: the evidence table (one row per shared document of each
kept edge, Σ c_ij rows) is built afterwards by `build_evidence`, only when it has at most
``EVIDENCE_MAX_ROWS`` rows; `edge_evidence` recomputes the documents behind one edge on demand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np
import pandas as pd
import pyarrow as pa_arrow
import pyarrow.compute as pa_compute
import scipy.sparse as sp

from ..atomic import sha256_file
from ..tables import Bundle
from ..thesaurus import read_thesaurus

#: OpenAlex's constant topic triple, assigned to ~22M mostly non-English works regardless of content.
TOPIC_TRIPLE = frozenset({"T14423", "T13154", "T14235"})

#: The evidence table is built only when it has at most this many rows (it has Σ c_ij rows over the kept
#: edges, e.g. 42M for coupling of 100k works); above it the table is left empty and metrics say why.
EVIDENCE_MAX_ROWS = 5_000_000

#: The column naming the document behind an edge, per kind.
EVIDENCE_VIA = {"coupling": "reference_id", "cocitation": "citing_id", "citation": "citing_id",
                "coauthorship": "work_id", "institutions": "work_id", "keywords": "work_id"}

_COUNT_DIGITS = 12  # fractional counts are rounded to 12 significant digits to drop summation noise
_PAIR_CHUNK = 4_000_000  # evidence enumerates group pairs at most this many at a time (plus one group)


@dataclass
class Incidence:
    """The distinct ``(group, member)`` incidences behind a network's edges, kept for the evidence table.

    `matrix` is groups × members (members = node codes), 0/1, any scipy sparse format; `group_ids[g]` is
    the ID of group code g (codes need not follow ID order); `via` names the evidence column.
    """

    matrix: sp.spmatrix | sp.sparray
    group_ids: pd.Index | np.ndarray
    via: str


@dataclass
class Raw:
    """A network before metrics: nodes sorted by ``node_id``; edges as codes into that order.

    `shared` is the number of shared groups (documents) of each edge when `count` is not that number
    (fractional counting); `incidence` is None for direct citation, whose evidence is the citing work.
    """

    nodes: pd.DataFrame            # node_id, label, occurrences, year, mean_year, doi, in_corpus
    source: np.ndarray             # integer node codes (int32 when they fit, else int64)
    target: np.ndarray
    count: np.ndarray              # float64 raw counts, > 0
    directed: bool = False
    incidence: Incidence | None = None
    shared: np.ndarray | None = None
    notes: dict = field(default_factory=dict)

    def evidence_rows(self) -> int:
        """Rows of the complete evidence table: Σ over edges of the number of shared documents."""
        if self.incidence is None:
            return int(len(self.source))
        shared = self.count if self.shared is None else self.shared
        return int(np.rint(np.sum(shared, dtype=np.float64)))


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


def corpus_rows(corpus: Bundle, name: str) -> pd.DataFrame:
    """Rows of table `name` whose work is in `corpus.works`, so that a stray row cannot add nodes."""
    df = getattr(corpus, name)
    inside = df["work_id"].isin(corpus.works["work_id"])
    return df if inside.all() else df[inside]


def _arrow_strings(values) -> pa_arrow.Array:
    """Strings as one Arrow array: zero-copy from a pandas str Index or Series, converted from objects."""
    if not isinstance(values, (pd.Index, pd.Series)):
        values = np.asarray(values, dtype=object)
    return pa_arrow.array(values, type=pa_arrow.large_string())


def coded_frame(coded: dict[str, tuple], plain: dict[str, np.ndarray] | None = None) -> pd.DataFrame:
    """A frame whose string columns are ``ids[codes]`` (`coded` maps a name to ``(ids, codes)``), gathered in
    Arrow rather than as millions of Python objects, then the `plain` columns."""
    columns = {}
    for name, (ids, codes) in coded.items():
        columns[name] = _arrow_strings(ids).take(pa_arrow.array(np.asarray(codes)))
    for name, values in (plain or {}).items():
        columns[name] = pa_arrow.array(np.asarray(values))
    return pa_arrow.table(columns).to_pandas()


def _argsort_ids(ids) -> np.ndarray:
    """The order that sorts string IDs by code point (= UTF-8 byte order, the order of the tables), in Arrow."""
    if len(ids) == 0:
        return np.zeros(0, dtype=np.int64)
    return pa_compute.array_sort_indices(_arrow_strings(ids)).to_numpy().astype(np.int64)


def _sorted_ids(values: pd.Series) -> pd.Index:
    """The distinct IDs, sorted."""
    ids = pd.Index(pd.unique(values), dtype="str")
    return pd.Index(ids[_argsort_ids(ids)])


def _lookup(index: pd.Index, values: pd.Series) -> np.ndarray:
    """Position of each value in `index`, -1 when absent; each distinct string is hashed once."""
    codes, uniques = pd.factorize(values)
    where = np.append(index.get_indexer(uniques), -1).astype(np.int64)
    return where[codes]


def _factorize(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes (first-appearance order) and the distinct values (a str Index)."""
    codes, uniques = pd.factorize(values)
    return codes.astype(np.int64), pd.Index(uniques, dtype="str")


def _incidence(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]) -> sp.csr_matrix:
    """The 0/1 CSR matrix with a one at each ``(row, col)``; repeated pairs count once."""
    dtype = np.int32 if max(shape) < 2**31 else np.int64
    m = sp.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows.astype(dtype), cols.astype(dtype))),
                      shape=shape)           # canonical: sorted columns, duplicates summed
    m.data[:] = 1
    return m


def _recode_columns(m: sp.csr_matrix, new: np.ndarray, n_new: int) -> sp.csr_matrix:
    """`m` with column c moved to ``new[c]``; columns with ``new[c] < 0`` are dropped."""
    cols = new[m.indices]
    keep = cols >= 0
    rows = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr))[keep]
    return _incidence(rows, cols[keep], (m.shape[0], n_new))


def _upper_triangle(product: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(i, j, c)`` of the non-zero strict upper triangle of a symmetric CSR matrix, sorted by ``(i, j)``.

    Sparse products leave column indices unsorted; instead of sorting, take the strict *lower* triangle
    (row j, column i < j) and convert it to CSC: a linear-time counting sort that lists, for each column
    i, its rows j in increasing order, which is the upper triangle in ``(i, j)`` order. Codes keep the
    matrix's index type (int32 below 2³¹ entries); large temporaries are few, because on big products
    their first-touch page faults cost as much as the arithmetic.
    """
    n = product.shape[0]
    indices, data = product.indices, product.data
    rows = np.repeat(np.arange(n, dtype=indices.dtype), np.diff(product.indptr))
    keep = np.less(indices, rows)
    if data.dtype.kind == "f":                                # sums of positive integers are never 0
        keep &= data != 0
    lower = sp.coo_matrix((data[keep], (rows[keep], indices[keep])), shape=(n, n))
    del rows, keep
    upper = lower.tocsc()                                     # rows stay in order within each column
    del lower
    i = np.repeat(np.arange(n, dtype=upper.indices.dtype), np.diff(upper.indptr))
    return i, upper.indices, upper.data


def _pair_product(a: sp.csr_matrix, weighted: sp.csr_matrix | None = None) -> sp.csr_matrix:
    """``Aᵀ A`` (or ``Aᵀ W A`` with `weighted` = ``W A``) of a groups × members matrix, in CSR."""
    at = a.T.tocsr()
    return at @ (a if weighted is None else weighted)


def cooccurrence(groups: np.ndarray, members: np.ndarray, n_members: int,
                 group_weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count member pairs sharing a group: the strict upper triangle of ``Aᵀ W A``.

    `groups` and `members` are integer codes of distinct incidences; `group_weight`, indexed by group
    code, is the contribution of one group to each of its pairs (None = 1 each, exact integers).
    Returns ``(i, j, c)`` sorted by ``(i, j)`` with ``i < j``; c is float64.
    """
    groups = np.asarray(groups, dtype=np.int64)
    members = np.asarray(members, dtype=np.int64)
    n_groups = int(groups.max()) + 1 if len(groups) else 0
    a = sp.csr_matrix((np.ones(len(groups), dtype=np.int64), (groups, members)), shape=(n_groups, n_members))
    if group_weight is None:
        i, j, c = _upper_triangle(_pair_product(a))
        return i, j, c.astype(np.float64)
    weighted = sp.csr_matrix((np.asarray(group_weight, dtype=np.float64)[groups], (groups, members)),
                             shape=(n_groups, n_members))
    i, j, c = _upper_triangle(_pair_product(a, weighted))
    return i, j, round_sig(c, _COUNT_DIGITS)


def _pairs_of_runs(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For consecutive runs of the given sizes: ``(run, first, second)`` positions of every pair in a run."""
    sizes = np.asarray(sizes, dtype=np.int64)
    total = int(sizes.sum())
    starts = np.cumsum(sizes) - sizes
    position = np.arange(total, dtype=np.int64) - np.repeat(starts, sizes)
    later = np.repeat(sizes, sizes) - position - 1
    first = np.repeat(np.arange(total, dtype=np.int64), later)
    run_start = np.repeat(np.cumsum(later) - later, later)
    second = first + 1 + (np.arange(len(first), dtype=np.int64) - run_start)
    run = np.repeat(np.repeat(np.arange(len(sizes), dtype=np.int64), sizes), later)
    return run, first, second


def pairs_within_groups(groups: np.ndarray, members: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair ``(a < b)`` of members sharing a group, with the group: ``(g, a, b)``, vectorised.

    Its length is Σ_g C(n_g, 2), the same as the total raw weight.
    """
    groups = np.asarray(groups, dtype=np.int64)
    members = np.asarray(members, dtype=np.int64)
    if len(groups) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    order = np.lexsort((members, groups))
    g, m = groups[order], members[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    _, first, second = _pairs_of_runs(np.diff(np.r_[starts, len(g)]))
    return g[first], m[first], m[second]


def _group_pairs(matrix: sp.csr_matrix, chunk: int | None = None) -> Iterator[tuple[np.ndarray, ...]]:
    """``(g, a, b)`` for every pair ``a < b`` of members of each group (rows of a canonical CSR matrix),
    in blocks of whole groups holding at most `chunk` pairs (or one larger group), so memory stays bounded."""
    chunk = _PAIR_CHUNK if chunk is None else chunk
    sizes = np.diff(matrix.indptr).astype(np.int64)
    ends = np.cumsum(sizes * (sizes - 1) // 2)
    g0, n_groups = 0, len(sizes)
    while g0 < n_groups:
        base = int(ends[g0 - 1]) if g0 else 0
        g1 = max(int(np.searchsorted(ends, base + chunk, side="right")), g0 + 1)
        g1 = min(g1, n_groups)
        if ends[g1 - 1] > base:
            lo = int(matrix.indptr[g0])
            run, first, second = _pairs_of_runs(sizes[g0:g1])
            members = matrix.indices[lo:int(matrix.indptr[g1])].astype(np.int64)
            yield run + g0, members[first], members[second]
        g0 = g1


def _work_nodes(corpus: Bundle, ids: pd.Index, occurrences: np.ndarray) -> pd.DataFrame:
    """Node rows for works: year/doi for corpus works; the label is the ID until `build` names the work."""
    works = corpus.works
    at = _lookup(ids, works["work_id"])                       # node row of each corpus work, or -1
    row = np.full(len(ids), -1, dtype=np.int64)               # corpus row of each node, or -1
    row[at[at >= 0]] = np.flatnonzero(at >= 0)
    inside = row >= 0
    where = np.flatnonzero(inside)
    meta = works.iloc[row[inside]]
    years = pd.array(meta["year"], dtype="Int64")
    year = np.zeros(len(ids), dtype=np.int64)
    missing = np.ones(len(ids), dtype=bool)
    year[where] = years.to_numpy(dtype=np.int64, na_value=0)
    missing[where] = years.isna()
    doi = np.full(len(ids), None, dtype=object)
    doi[where] = meta["doi"].astype(object).where(meta["doi"].notna(), None).to_numpy()
    return pd.DataFrame({
        "node_id": ids.astype(str),
        "label": np.asarray(ids, dtype=object),
        "occurrences": np.asarray(occurrences, dtype=np.int64),
        "year": pd.arrays.IntegerArray(year, missing),
        "mean_year": np.where(missing, np.nan, year.astype(np.float64)),
        "doi": doi,
        "in_corpus": inside,
    })


def _item_nodes(ids: pd.Index, occurrences: np.ndarray, labels: pd.Series, mean_year: np.ndarray) -> pd.DataFrame:
    """Node rows for authors, institutions and terms (never corpus works themselves)."""
    named = labels.reindex(ids)
    return pd.DataFrame({
        "node_id": ids.astype(str),
        "label": named.fillna(pd.Series(ids, index=ids)).astype(str).to_numpy(),
        "occurrences": np.asarray(occurrences, dtype=np.int64),
        "year": pd.array([pd.NA] * len(ids), dtype="Int64"),
        "mean_year": np.asarray(mean_year, dtype=np.float64),
        "doi": np.full(len(ids), None, dtype=object),
        "in_corpus": np.zeros(len(ids), dtype=bool),
    })


def work_years(corpus: Bundle) -> pd.Series:
    """work_id → publication year (float; NaN when unknown) of the corpus works."""
    works = corpus.works
    return pd.Series(pd.array(works["year"], dtype="Float64").to_numpy(dtype=np.float64, na_value=np.nan),
                     index=pd.Index(works["work_id"], dtype="str"))


def mean_years(a: sp.csr_matrix, work_ids, years: pd.Series | None) -> np.ndarray:
    """For each column (node) of the works × nodes 0/1 matrix `a`: the mean year of its works that have
    one (NaN when none do, or without `years`), rounded to 12 significant digits."""
    if years is None:
        return np.full(a.shape[1], np.nan)
    y = years.reindex(pd.Index(work_ids, dtype="str")).to_numpy(dtype=np.float64)
    known = ~np.isnan(y)
    total = a.T @ np.where(known, y, 0.0)
    count = a.T @ known.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return round_sig(np.where(count > 0, total / count, np.nan), _COUNT_DIGITS)


def _mode_label(df: pd.DataFrame, key: str, label: str) -> pd.Series:
    """For each `key`, its most frequent non-null `label` (ties: the smallest label)."""
    named = df.loc[df[label].notna(), [key, label]]
    if named.empty:
        return pd.Series(dtype=object, name=label)
    counts = named.groupby([key, label], sort=True).size().rename("n").reset_index()
    counts = counts.sort_values([key, "n", label], ascending=[True, False, True], kind="mergesort")
    return counts.drop_duplicates(key).set_index(key)[label]


def _select_members(m: sp.csr_matrix, uniques: pd.Index, occurrences: np.ndarray,
                    min_occurrences: int) -> tuple[sp.csr_matrix, pd.Index, np.ndarray]:
    """Keep the columns (members) of `m` with ``occurrences >= max(min_occurrences, 1)`` and recode them by
    sorted ID. Returns the groups × nodes matrix, the sorted node IDs and their occurrences."""
    kept = np.flatnonzero(occurrences >= max(min_occurrences, 1))
    kept_ids = uniques[kept]
    order = _argsort_ids(kept_ids)
    new = np.full(len(uniques), -1, dtype=np.int64)
    new[kept[order]] = np.arange(len(kept), dtype=np.int64)
    ids = pd.Index(kept_ids[order], dtype="str")
    return _recode_columns(m, new, len(kept)), ids, occurrences[kept[order]]


def _count_edges(a: sp.csr_matrix, min_weight: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integer pair counts of the groups × nodes matrix `a`, thresholded, as float64 counts."""
    i, j, c = _upper_triangle(_pair_product(a))
    if min_weight > 1:
        keep = c >= min_weight
        i, j, c = i[keep], j[keep], c[keep]
    return i, j, c.astype(np.float64)


def _fractional_weights(sizes: np.ndarray) -> np.ndarray:
    """``1/(n_g − 1)`` per group (0 for single-member groups, which make no pairs anyway)."""
    sizes = sizes.astype(np.float64)
    return np.divide(1.0, sizes - 1.0, out=np.zeros_like(sizes), where=sizes > 1)


# ----------------------------------------------------------------------------------------------------
# Work-based networks


def _corpus_works(corpus: Bundle) -> pd.Index:
    return _sorted_ids(corpus.works["work_id"])


def _reference_matrix(corpus: Bundle, works: pd.Index) -> tuple[sp.csr_matrix, pd.Index]:
    """Corpus works × referenced IDs, 0/1 (rows of works outside the corpus are ignored)."""
    refs = corpus.references
    w = _lookup(works, refs["work_id"])
    r, ref_ids = _factorize(refs["referenced_id"])
    inside = w >= 0
    return _incidence(w[inside], r[inside], (len(works), len(ref_ids))), ref_ids


def build_coupling(corpus: Bundle, params: dict) -> Raw:
    """Bibliographic coupling: nodes are corpus works; ``c(a, b) = |R(a) ∩ R(b)|``.

    R(d) is the set of works referenced by corpus work d (inside or outside the corpus);
    occurrences ``s_d = |R(d)|``. Every corpus work with ``s_d ≥ min_occurrences`` is a node, isolated or
    not. Evidence: one row ``(source, target, reference_id)`` per shared reference of each kept edge.
    """
    works = _corpus_works(corpus)
    m, ref_ids = _reference_matrix(corpus, works)            # works × references
    occurrences = np.diff(m.indptr).astype(np.int64)
    keep = occurrences >= params["min_occurrences"]
    if not keep.all():
        m, works, occurrences = m[keep], works[keep], occurrences[keep]
    a = m.T.tocsr()                                          # references (groups) × works (members)
    del m
    i, j, c = _count_edges(a, params["min_weight"])
    nodes = _work_nodes(corpus, works, occurrences)
    return Raw(nodes, i, j, c, incidence=Incidence(a, ref_ids, "reference_id"))


def build_cocitation(corpus: Bundle, params: dict) -> Raw:
    """Co-citation: nodes are works cited by the corpus; ``c(x, y)`` = number of corpus works citing both.

    Occurrences ``s_x`` = number of corpus works citing x. Cited works may lie outside the corpus
    (``in_corpus`` false; `build` names them from the cited works' table when it knows them).
    Evidence: one row ``(source, target, citing_id)`` per corpus work citing both ends of a kept edge.
    """
    works = _corpus_works(corpus)
    m, ref_ids = _reference_matrix(corpus, works)            # citing works (groups) × references
    occurrences = np.bincount(m.indices, minlength=len(ref_ids)).astype(np.int64)
    a, ids, occurrences = _select_members(m, ref_ids, occurrences, params["min_occurrences"])
    del m
    i, j, c = _count_edges(a, params["min_weight"])
    nodes = _work_nodes(corpus, ids, occurrences)
    return Raw(nodes, i, j, c, incidence=Incidence(a, works, "citing_id"))


def build_citation(corpus: Bundle, params: dict) -> Raw:
    """Direct citation: a directed edge ``citing → cited`` (count 1) for each reference between corpus works.

    Self-citations are ignored. Occurrences ``s_d`` = number of corpus works citing d (its local citation
    count). Every corpus work with ``s_d ≥ min_occurrences`` is a node, isolated or not.
    """
    works = _corpus_works(corpus)
    n = np.int64(max(len(works), 1))
    w = _lookup(works, corpus.references["work_id"])
    d = _lookup(works, corpus.references["referenced_id"])
    ok = (w >= 0) & (d >= 0) & (w != d)
    arcs = np.unique(w[ok] * n + d[ok])                      # distinct (citing, cited), sorted
    src, dst = arcs // n, arcs % n
    occurrences = np.bincount(dst, minlength=len(works)).astype(np.int64)
    keep = occurrences >= params["min_occurrences"]
    new = np.where(keep, np.cumsum(keep) - 1, -1).astype(np.int64)
    src, dst = new[src], new[dst]
    both = (src >= 0) & (dst >= 0)
    i, j = src[both], dst[both]                              # still sorted: `new` is increasing
    c = np.ones(len(i))
    if params["min_weight"] > 1:                             # every arc counts 1
        i, j, c = i[:0], j[:0], c[:0]
    nodes = _work_nodes(corpus, works[keep], occurrences[keep])
    return Raw(nodes, i, j, c, directed=True)


# ----------------------------------------------------------------------------------------------------
# Co-occurrence networks of items (authors, institutions, terms)


def build_items(incidence: pd.DataFrame, labels: pd.Series, params: dict, years: pd.Series | None = None) -> Raw:
    """Co-occurrence of items in works: ``c(x, y) = Σ_{d ∋ x, y} w_d``.

    `incidence` holds ``(work_id, item_id)`` rows (repeats count once). Full counting: ``w_d = 1``
    (c = number of shared works). Fractional counting: ``w_d = 1/(|I(d)| − 1)``, where |I(d)| counts *all*
    distinct items of d before the ``min_occurrences`` filter, so that each work adds at most 1 to any
    item's total link strength. Occurrences ``s_x`` = number of works of x (an integer under both
    countings). ``min_weight`` applies to the number of shared works (= the count under full counting),
    so that a threshold means the same under both countings. A node's ``mean_year`` is the mean
    publication year of its works (`years`: work_id → year; those without one are left out).
    """
    g, work_ids = pd.factorize(incidence["work_id"], sort=True)     # group codes in work_id order
    x, item_ids = _factorize(incidence["item_id"])
    m = _incidence(g.astype(np.int64), x, (len(work_ids), len(item_ids)))   # works × items
    sizes = np.diff(m.indptr)                                   # all distinct items of each work
    occurrences = np.bincount(m.indices, minlength=len(item_ids)).astype(np.int64)
    a, ids, occurrences = _select_members(m, item_ids, occurrences, params["min_occurrences"])
    del m
    nodes = _item_nodes(ids, occurrences, labels, mean_years(a, work_ids, years))
    documents = Incidence(a, pd.Index(work_ids, dtype="str"), "work_id")
    i, j, shared = _upper_triangle(_pair_product(a))
    keep = shared >= params["min_weight"]           # the threshold counts works, whatever the counting
    shared = shared.astype(np.float64)
    if params.get("counting") != "fractional":
        return Raw(nodes, i[keep], j[keep], shared[keep], incidence=documents)
    share = _fractional_weights(sizes)
    weighted = sp.csr_matrix((np.repeat(share, np.diff(a.indptr)), a.indices, a.indptr), shape=a.shape)
    fi, fj, c = _upper_triangle(_pair_product(a, weighted))
    assert np.array_equal(fi, i) and np.array_equal(fj, j)   # same pairs: every shared group has n ≥ 2
    return Raw(nodes, i[keep], j[keep], round_sig(c[keep], _COUNT_DIGITS), incidence=documents,
               shared=shared[keep])


def build_coauthorship(corpus: Bundle, params: dict) -> Raw:
    """Co-authorship: nodes are authors (OpenAlex author IDs; authorships without an ID are skipped
    unless the thesaurus names them)."""
    return _build_item_kind("coauthorship", corpus, params)


def build_institutions(corpus: Bundle, params: dict) -> Raw:
    """Co-institution: nodes are institutions; I(d) = distinct institutions of any author of work d."""
    return _build_item_kind("institutions", corpus, params)


def _build_item_kind(kind: str, corpus: Bundle, params: dict) -> Raw:
    rows, notes = item_rows(kind, corpus, params)
    labels = _mode_label(rows, "item_id", "label")
    raw = build_items(rows[["work_id", "item_id"]], labels, params, work_years(corpus))
    raw.notes.update(notes)
    return raw


#: The table, ID column and label column each item kind is made of.
ITEM_COLUMNS = {"coauthorship": ("authorships", "author_id", "author_name"),
                "institutions": ("affiliations", "institution_id", "institution_name")}


def item_rows(kind: str, corpus: Bundle, params: dict | None = None) -> tuple[pd.DataFrame, dict]:
    """The ``(work_id, item_id, label)`` rows an item network counts, after its thesaurus (``params``'
    ``thesaurus``; keywords: also the field choice and topic guard), and the notes saying what was applied."""
    params = params or {}
    if kind == "keywords":
        rows, notes = _term_rows(corpus, params)
        return pd.DataFrame({"work_id": rows["work_id"], "item_id": rows["term_id"], "label": rows["term"]}), notes
    table, id_col, label_col = ITEM_COLUMNS[kind]
    found = corpus_rows(corpus, table)
    rows = pd.DataFrame({"work_id": found["work_id"], "item_id": found[id_col], "label": found[label_col]})
    notes: dict = {}
    if params.get("thesaurus"):
        rows, notes = _with_thesaurus(rows, params["thesaurus"])
    return rows[rows["item_id"].notna()].reset_index(drop=True), notes


def _with_thesaurus(rows: pd.DataFrame, path, known: pd.DataFrame | None = None) -> tuple[pd.DataFrame, dict]:
    mapping = read_thesaurus(path)
    rows = apply_thesaurus(rows, dict(zip(mapping["term_id"], mapping["replace_by"])), known)
    return rows, {"thesaurus_sha256": sha256_file(path), "thesaurus_entries": int(len(mapping))}


def _fold(label) -> str:
    """A label as the thesaurus matches it: case and runs of white space ignored."""
    return " ".join(str(label).split()).casefold()


def _folded(labels: pd.Series) -> pd.Series:
    """`_fold` of each label (None stays None), computed once per distinct label."""
    return labels.map({label: _fold(label) for label in labels.dropna().unique()})


def apply_thesaurus(rows: pd.DataFrame, mapping: dict[str, str], known: pd.DataFrame | None = None) -> pd.DataFrame:
    """Replace the items of ``(work_id, item_id, label)`` rows as a thesaurus says (once, chains already
    resolved by `thesaurus.read`). A key matches an item ID, else a label (case and spacing ignored). A
    target is an item ID, else the label of one (the ID that label names most often; ties: smallest
    ID), else a new item named by the target. An empty target drops the row; a replaced row takes the
    most frequent label of its new ID. `known` (default: `rows`) holds the items targets may name."""
    known = (rows if known is None else known).dropna(subset=["item_id"])
    by_label: dict[str, str] = {}
    named = known.dropna(subset=["label"]).assign(folded=lambda d: _folded(d["label"]))
    counts = named.groupby(["folded", "item_id"], sort=True).size().rename("n").reset_index()
    for row in counts.sort_values(["folded", "n", "item_id"], ascending=[True, False, True],
                                  kind="mergesort").drop_duplicates("folded").itertuples(index=False):
        by_label[row.folded] = row.item_id
    ids = set(known["item_id"])
    folded_keys: dict[str, str] = {}
    for key, target in mapping.items():
        folded_keys.setdefault(_fold(key), target)
    by_id = rows["item_id"].map(mapping)
    by_name = _folded(rows["label"]).map(folded_keys)
    target = by_id.where(by_id.notna(), by_name)
    hit = target.notna()
    resolved = target[hit].map(lambda t: t if t == "" or t in ids else by_label.get(_fold(t), t))
    rows = rows.assign(item_id=rows["item_id"].where(~hit, resolved), label=rows["label"].where(~hit, None))
    rows = rows[rows["item_id"] != ""]
    labels = _mode_label(known, "item_id", "label")
    missing = rows["label"].isna() & rows["item_id"].notna()
    fallback = rows.loc[missing, "item_id"].map(labels)
    rows.loc[missing, "label"] = fallback.where(fallback.notna(), rows.loc[missing, "item_id"])
    return rows.reset_index(drop=True)


AUTO_ORDER = ("keywords", "author_keywords", "index_keywords", "concepts")


def select_terms(terms: pd.DataFrame, field_name: str) -> tuple[pd.DataFrame, int]:
    """Rows of the chosen term field. ``auto`` = per work the first field it has of `AUTO_ORDER`
    (OpenAlex keywords, an export's author keywords, indexer keywords, OpenAlex concepts);
    ``all_keywords`` = author and indexer keywords and MeSH together (VOSviewer's "all keywords").

    On ``topics``, a work whose topics are exactly OpenAlex's constant triple loses them. Returns the
    rows and the number of works so guarded.
    """
    if field_name == "auto":
        chosen = pd.Series(False, index=terms.index)
        done = pd.Index([])
        for name in AUTO_ORDER:
            rows = (terms["field"] == name) & ~terms["work_id"].isin(done)
            chosen |= rows
            done = done.union(pd.Index(terms.loc[rows, "work_id"].unique()))
        return terms[chosen], 0
    if field_name == "all_keywords":
        rows = terms[terms["field"].isin(["author_keywords", "index_keywords", "mesh"])]
        return rows.drop_duplicates(["work_id", "term_id"]), 0
    rows = terms[terms["field"] == field_name]
    if field_name != "topics" or rows.empty:
        return rows, 0
    per_work = rows.groupby("work_id")["term_id"].agg(["size", lambda s: s.isin(TOPIC_TRIPLE).sum()])
    per_work.columns = ["n", "triple"]
    guarded = per_work.index[(per_work["n"] == 3) & (per_work["triple"] == 3)]
    return rows[~rows["work_id"].isin(guarded)], int(len(guarded))


def _term_rows(corpus: Bundle, params: dict) -> tuple[pd.DataFrame, dict]:
    """The term rows the keywords network counts (field choice, topic guard, thesaurus) and notes."""
    terms = corpus_rows(corpus, "terms")
    field_name = params.get("field", "auto")
    rows, guarded = select_terms(terms, field_name)
    notes: dict = {"topic_triple_guarded_works": guarded} if field_name == "topics" else {}
    if params.get("thesaurus"):
        items = pd.DataFrame({"work_id": rows["work_id"], "item_id": rows["term_id"], "label": rows["term"]})
        every = pd.DataFrame({"work_id": terms["work_id"], "item_id": terms["term_id"], "label": terms["term"]})
        items, more = _with_thesaurus(items, params["thesaurus"], every)
        rows = pd.DataFrame({"work_id": items["work_id"], "term_id": items["item_id"], "term": items["label"]})
        notes.update(more)
    return rows, notes


def build_keywords(corpus: Bundle, params: dict) -> Raw:
    """Co-word: nodes are terms of the chosen field (keywords, topics, concepts or auto), after the thesaurus."""
    rows, notes = _term_rows(corpus, params)
    incidence = pd.DataFrame({"work_id": rows["work_id"], "item_id": rows["term_id"]})
    raw = build_items(incidence, _mode_label(rows, "term_id", "term"), params, work_years(corpus))
    raw.notes.update(notes)
    return raw


# ----------------------------------------------------------------------------------------------------
# Evidence: the documents behind each kept edge


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
        for g, a, b in _group_pairs(matrix):
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
    rank[_argsort_ids(names)] = np.arange(len(used), dtype=np.int64)
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


BUILDERS = {
    "coupling": build_coupling,
    "cocitation": build_cocitation,
    "citation": build_citation,
    "coauthorship": build_coauthorship,
    "institutions": build_institutions,
    "keywords": build_keywords,
}


__all__ = ["BUILDERS", "EVIDENCE_MAX_ROWS", "EVIDENCE_VIA", "Incidence", "Raw", "TOPIC_TRIPLE", "build_evidence",
           "coded_frame", "cooccurrence", "edge_evidence", "pairs_within_groups", "round_sig",
           "item_rows", "read_thesaurus", "select_terms"]
