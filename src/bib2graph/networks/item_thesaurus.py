"""A thesaurus applied to the ``(work_id, item_id, label)`` rows of an item network before counting:
items merged, renamed or dropped (a VOSviewer thesaurus file, read by bib2graph.thesaurus).
"""

from __future__ import annotations

import pandas as pd

from ..atomic import sha256_file
from ..thesaurus import read_thesaurus
from .nodes import mode_label


def with_thesaurus(rows: pd.DataFrame, path, known: pd.DataFrame | None = None) -> tuple[pd.DataFrame, dict]:
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
    labels = mode_label(known, "item_id", "label")
    missing = rows["label"].isna() & rows["item_id"].notna()
    fallback = rows.loc[missing, "item_id"].map(labels)
    rows.loc[missing, "label"] = fallback.where(fallback.notna(), rows.loc[missing, "item_id"])
    return rows.reset_index(drop=True)
