"""The networks whose nodes are works, from the corpus's references: bibliographic coupling,
co-citation and direct citation.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..tables import Bundle
from .coding import factorize, lookup, sorted_ids
from .counting import count_edges, incidence_matrix, select_members
from .nodes import work_nodes
from .raw import Incidence, Raw


def _corpus_works(corpus: Bundle) -> pd.Index:
    return sorted_ids(corpus.works["work_id"])


def _reference_matrix(corpus: Bundle, works: pd.Index) -> tuple[sp.csr_matrix, pd.Index]:
    """Corpus works × referenced IDs, 0/1 (rows of works outside the corpus are ignored)."""
    refs = corpus.references
    w = lookup(works, refs["work_id"])
    r, ref_ids = factorize(refs["referenced_id"])
    inside = w >= 0
    return incidence_matrix(w[inside], r[inside], (len(works), len(ref_ids))), ref_ids


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
    i, j, c = count_edges(a, params["min_weight"])
    nodes = work_nodes(corpus, works, occurrences)
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
    a, ids, occurrences = select_members(m, ref_ids, occurrences, params["min_occurrences"])
    del m
    i, j, c = count_edges(a, params["min_weight"])
    nodes = work_nodes(corpus, ids, occurrences)
    return Raw(nodes, i, j, c, incidence=Incidence(a, works, "citing_id"))


def build_citation(corpus: Bundle, params: dict) -> Raw:
    """Direct citation: a directed edge ``citing → cited`` (count 1) for each reference between corpus works.

    Self-citations are ignored. Occurrences ``s_d`` = number of corpus works citing d (its local citation
    count). Every corpus work with ``s_d ≥ min_occurrences`` is a node, isolated or not.
    """
    works = _corpus_works(corpus)
    n = np.int64(max(len(works), 1))
    w = lookup(works, corpus.references["work_id"])
    d = lookup(works, corpus.references["referenced_id"])
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
    nodes = work_nodes(corpus, works[keep], occurrences[keep])
    return Raw(nodes, i, j, c, directed=True)
