"""The co-occurrence networks of items in works: co-authorship, co-institution and co-word (keywords).

One recipe (`build_items`) over the ``(work_id, item_id)`` rows each kind reads (`item_rows`: the
authorships, the affiliations or the chosen terms, after the thesaurus).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..tables import Bundle
from .coding import corpus_rows, factorize
from .counting import COUNT_DIGITS, fractional_weights, incidence_matrix, pair_counts, round_sig, select_members
from .item_thesaurus import with_thesaurus
from .nodes import item_nodes, mean_years, mode_label, work_years
from .raw import Incidence, Raw
from .terms import term_rows


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
    x, item_ids = factorize(incidence["item_id"])
    m = incidence_matrix(g.astype(np.int64), x, (len(work_ids), len(item_ids)))   # works × items
    sizes = np.diff(m.indptr)                                   # all distinct items of each work
    occurrences = np.bincount(m.indices, minlength=len(item_ids)).astype(np.int64)
    a, ids, occurrences = select_members(m, item_ids, occurrences, params["min_occurrences"])
    del m
    nodes = item_nodes(ids, occurrences, labels, mean_years(a, work_ids, years))
    documents = Incidence(a, pd.Index(work_ids, dtype="str"), "work_id")
    i, j, shared = pair_counts(a)
    keep = shared >= params["min_weight"]           # the threshold counts works, whatever the counting
    shared = shared.astype(np.float64)
    if params.get("counting") != "fractional":
        return Raw(nodes, i[keep], j[keep], shared[keep], incidence=documents)
    share = fractional_weights(sizes)
    weighted = sp.csr_matrix((np.repeat(share, np.diff(a.indptr)), a.indices, a.indptr), shape=a.shape)
    fi, fj, c = pair_counts(a, weighted)
    assert np.array_equal(fi, i) and np.array_equal(fj, j)   # same pairs: every shared group has n ≥ 2
    return Raw(nodes, i[keep], j[keep], round_sig(c[keep], COUNT_DIGITS), incidence=documents,
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
    labels = mode_label(rows, "item_id", "label")
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
        rows, notes = term_rows(corpus, params)
        return pd.DataFrame({"work_id": rows["work_id"], "item_id": rows["term_id"], "label": rows["term"]}), notes
    table, id_col, label_col = ITEM_COLUMNS[kind]
    found = corpus_rows(corpus, table)
    rows = pd.DataFrame({"work_id": found["work_id"], "item_id": found[id_col], "label": found[label_col]})
    notes: dict = {}
    if params.get("thesaurus"):
        rows, notes = with_thesaurus(rows, params["thesaurus"])
    return rows[rows["item_id"].notna()].reset_index(drop=True), notes


def build_keywords(corpus: Bundle, params: dict) -> Raw:
    """Co-word: nodes are terms of the chosen field (keywords, topics, concepts or auto), after the thesaurus."""
    rows, notes = term_rows(corpus, params)
    incidence = pd.DataFrame({"work_id": rows["work_id"], "item_id": rows["term_id"]})
    raw = build_items(incidence, mode_label(rows, "term_id", "term"), params, work_years(corpus))
    raw.notes.update(notes)
    return raw
