"""Network construction: corpus tables → a sorted node table and an integer-coded edge list, one builder
per kind (`BUILDERS`).

Every builder follows one recipe so that results are exact, deterministic and sparse:

1. take an incidence table of distinct ``(group, member)`` pairs from the corpus (for coupling a group is
   a cited reference and members are the citing works; for co-occurrence networks a group is a work and
   members are its authors, institutions or terms), as integer codes: each distinct string is hashed once
   and everything after that works on integer arrays (coding.py);
2. count each member's occurrences and drop members below ``min_occurrences`` *before* pairing;
3. code members by their position in the sorted array of unique IDs (so that code order is ID order and
   ``source < target`` holds for every undirected edge);
4. count pairs with a sparse product ``C = Aᵀ W A`` of the groups × members incidence matrix ``A``
   (``W`` = diagonal group weights: 1, or ``1/(n_g − 1)`` for fractional counting), keep the strict upper
   triangle and drop pairs whose count is below ``min_weight`` (counting.py).

Memory is proportional to the number of non-zero pairs; no dense n × n matrix is ever built. Counting
does not enumerate the pairs behind each edge: the evidence table (one row per shared document of each
kept edge, Σ c_ij rows) is built afterwards by `evidence.build_evidence`, only when it has at most
``EVIDENCE_MAX_ROWS`` rows; `evidence.edge_evidence` recomputes the documents behind one edge on demand.

The builders: work_networks.py (coupling, co-citation, citation) and item_networks.py (co-authorship,
institutions, keywords); each gives a `raw.Raw` with node tables from nodes.py.
"""

from __future__ import annotations

from .item_networks import build_coauthorship, build_institutions, build_keywords
from .work_networks import build_citation, build_cocitation, build_coupling

BUILDERS = {
    "coupling": build_coupling,
    "cocitation": build_cocitation,
    "citation": build_citation,
    "coauthorship": build_coauthorship,
    "institutions": build_institutions,
    "keywords": build_keywords,
}
