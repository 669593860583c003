"""How far two databases' exports of the same works agree on what those works cite, measured on
bibliographic coupling. Pure functions, no I/O.

A Web of Science and a Scopus export of one query hold many of the same works, each with its own
list of cited references written in its own style. Were the reference identities perfect, the two
lists of a work would name the same cited works, and the coupling network built from either export
would be the same. The sources manifest reports how far they are from that (`agreements`), so that a
user merging two exports sees whether the cited works of one were matched to those of the other.

Definitions (`coupling_agreement`):

* the works *in both* are the merged works that hold a record from each side (ingest.py merges
  records by DOI, PMID, or title, year and first author);
* a side's reference list of a work is the set of cited works its record of that side names, after
  identities are resolved once over all files (``REF:`` works and works of the universe alike; a work
  citing itself is left out);
* two works in both are *coupled* on a side when their reference lists on that side share at least one
  cited work: an unordered pair, once, however many references they share;
* agreement is the Jaccard index of the two sides' edge sets, |A ∩ B| / |A ∪ B| (1.0 when both are
  empty).

Identities are resolved once over all files because that is what the merged graph is built from: a
Scopus reference without a DOI takes the DOI a WoS reference of the same work carries
(`references.merge_identities`), exactly as in the network. Comparing the two sides' identity strings
as each file alone would key them measures the identity rules without that help, and is lower.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from scipy import sparse

# Each format's database; RIS, BibTeX and CSL-JSON carry whatever database exported them, which the
# record's own ID tells (WOS:…, 2-s2.0-…).
DATABASES = {"wos": "wos", "wos-tab": "wos", "scopus-csv": "scopus", "scopus-ris": "scopus",
             "pubmed": "pubmed", "pubmed-xml": "pubmed", "embase-ris": "embase", "cochrane": "cochrane",
             "dimensions-csv": "dimensions", "lens-csv": "lens"}
ID_DATABASES = frozenset({"wos", "scopus", "dimensions", "embase", "cochrane", "lens"})


def database(format: str, scheme: str | None) -> str | None:
    """The database a record comes from: by its format, else by the scheme of its own ID."""
    return DATABASES.get(format) or (scheme if scheme in ID_DATABASES else None)


def coupling_edges(cites: Mapping[str, Iterable[str]], works: list[str]) -> sparse.csr_matrix:
    """The coupling edges among `works` (upper triangle of a boolean works × works matrix, in the order
    of `works`): two works are coupled when their reference sets share a cited work."""
    index: dict[str, int] = {}
    rows, cols = [], []
    for i, work in enumerate(works):
        for ref in set(cites.get(work, ())) - {work}:
            rows.append(i)
            cols.append(index.setdefault(ref, len(index)))
    incidence = sparse.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, cols)),
                                  shape=(len(works), len(index)))
    shared = sparse.triu(incidence @ incidence.T, k=1).tocsr()
    shared.data = np.ones_like(shared.data)
    shared.eliminate_zeros()
    return shared


def coupling_agreement(left: Mapping[str, Iterable[str]], right: Mapping[str, Iterable[str]]) -> dict[str, Any]:
    """Coupling edges among the works both sides list (work → its cited works on that side): the works,
    each side's edges, the edges both have, and their Jaccard index."""
    works = sorted(set(left) & set(right))
    a, b = coupling_edges(left, works), coupling_edges(right, works)
    both = int(a.multiply(b).count_nonzero())
    union = a.count_nonzero() + b.count_nonzero() - both
    return {"works": len(works), "edges": [int(a.count_nonzero()), int(b.count_nonzero())], "in_both": both,
            "jaccard": round(both / union, 4) if union else 1.0}


def agreements(sides: Mapping[str, Mapping[str, set[str]]],
               files: Mapping[str, list[str]] | None = None) -> list[dict[str, Any]]:
    """`coupling_agreement` for each pair of databases (database → work → cited works) that hold at least
    one work in common, in name order, with the files each database's records came from."""
    names = sorted(sides)
    out = []
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            if set(sides[first]) & set(sides[second]):
                entry = {"databases": [first, second]}
                if files is not None:
                    entry["files"] = [sorted(files.get(first, [])), sorted(files.get(second, []))]
                out.append(entry | coupling_agreement(sides[first], sides[second]))
    return out
