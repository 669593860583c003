"""A reading order: within each cluster, the nodes ranked by PageRank (ties: degree, then ID).

For the paper networks (coupling, co-citation, citation) only corpus works are listed, so a reader
goes cluster by cluster from the most central works of the corpus outwards. For the other kinds it
ranks authors, institutions or terms the same way.
"""

from __future__ import annotations

import os

import pandas as pd

from ..atomic import write_text
from .csv import frame_text

PAPER_KINDS = ("coupling", "cocitation", "citation")
COLUMNS = ["cluster", "rank", "node_id", "label", "year", "doi", "pagerank", "degree"]


def reading_order(kind: str, nodes: pd.DataFrame) -> pd.DataFrame:
    if kind in PAPER_KINDS:
        nodes = nodes[nodes["in_corpus"]]
    ranked = nodes.sort_values(["cluster", "pagerank", "degree", "node_id"],
                               ascending=[True, False, False, True], kind="mergesort")
    ranked = ranked.assign(rank=ranked.groupby("cluster").cumcount() + 1)
    return ranked[COLUMNS].reset_index(drop=True)


def write_reading_order(network, path: str | os.PathLike[str]) -> None:
    write_text(path, frame_text(reading_order(network.kind, network.nodes)))
