"""What a builder gives: a network before metrics (`Raw`) and the incidences behind its edges
(`Incidence`), which the evidence table (evidence.py) enumerates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp


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
