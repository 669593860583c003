"""Node and edge tables as UTF-8 CSV, safe to open in a spreadsheet (no formula injection)."""

from __future__ import annotations

import os

import pandas as pd

from ..atomic import write_text

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def defuse(value):
    """Prefix a text cell that a spreadsheet would run as a formula with a single quote."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def frame_text(df: pd.DataFrame) -> str:
    """The CSV text of `df` with every text cell defused."""
    df = df.copy()
    for column in df.columns:
        if df[column].dtype == object or pd.api.types.is_string_dtype(df[column]):
            df[column] = df[column].astype(object).map(defuse, na_action="ignore")
    return df.to_csv(index=False, lineterminator="\n")


def write_csv(network, nodes_path: str | os.PathLike[str], edges_path: str | os.PathLike[str]) -> None:
    """Write the node table and the edge table (columns as in docs/networks.md)."""
    write_text(nodes_path, frame_text(network.nodes))
    write_text(edges_path, frame_text(network.edges))
