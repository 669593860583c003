"""The trends of a corpus: bursts of cited references, terms and authors, and RPYS, over the works the
guards keep (guards.py). Pure functions over bundle tables; the `trends` job writes what they return."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..cited import META
from ..networks.item_networks import item_rows
from ..networks.work_labels import name_work_nodes
from ..tables import Bundle
from . import bursts, rpys, slices

#: the item families bursts are detected in, and where their rows come from
BURST_ITEMS = ("references", "terms", "authors")


def year_range(works: pd.DataFrame, settings: dict[str, Any]) -> tuple[int, int] | None:
    """The years trends cover: the spec's ``range`` where set, else the corpus's first and last year."""
    years = pd.to_numeric(works["year"], errors="coerce").dropna()
    if years.empty:
        return None
    first = settings["range"]["start"] if settings["range"]["start"] is not None else int(years.min())
    last = settings["range"]["end"] if settings["range"]["end"] is not None else int(years.max())
    return (int(first), int(last)) if first <= last else None


def _rows(family: str, corpus: Bundle, keyword_params: dict) -> pd.DataFrame:
    """(work_id, item, label) rows of one item family; references are labelled later from metadata."""
    if family == "references":
        refs = corpus.references
        return pd.DataFrame({"work_id": refs["work_id"], "item": refs["referenced_id"], "label": refs["referenced_id"]})
    rows, _ = item_rows("keywords" if family == "terms" else "coauthorship", corpus,
                        keyword_params if family == "terms" else {})
    return pd.DataFrame({"work_id": rows["work_id"], "item": rows["item_id"], "label": rows["label"]})


def _reference_labels(ids: pd.Series, meta: pd.DataFrame) -> pd.Series:
    """"Surname (year) title" for cited works whose metadata is known, else their ID."""
    nodes = pd.DataFrame({"node_id": ids.astype(str).to_numpy(), "in_corpus": True,
                          "year": pd.array([pd.NA] * len(ids), "Int64"), "doi": None})
    return name_work_nodes(nodes, meta)["label"]


def burst_table(corpus: Bundle, meta: pd.DataFrame, span: tuple[int, int], settings: dict[str, Any],
                keyword_params: dict) -> tuple[pd.DataFrame, dict[str, int]]:
    """Every burst: ``family``, ``item``, ``label``, ``works`` (works carrying it in the range),
    ``begin``, ``end`` (years), ``strength``; sorted by family, strength (descending), item. Items carried
    by fewer than ``min_works`` works are not tested (counted per family)."""
    out, tested = [], {}
    for family in settings["items"]:
        rows = _rows(family, corpus, keyword_params)
        items, r, d = slices.yearly_matrix(rows, corpus.works, span[0], span[1], settings["min_works"])
        tested[family] = len(items)
        found = bursts.detect(r, d, settings["s"], settings["gamma"], settings["min_duration"])
        if not found:
            continue
        labels = rows.drop_duplicates("item").set_index("item")["label"]
        picked = pd.Series([items[b.item] for b in found])
        table = pd.DataFrame({"family": family, "item": picked,
                              "label": picked.map(labels).astype("string"),
                              "works": [int(r[b.item].sum()) for b in found],
                              "begin": [span[0] + b.begin for b in found],
                              "end": [span[0] + b.end for b in found],
                              "strength": [round(b.strength, 6) for b in found]})
        if family == "references":
            table["label"] = _reference_labels(table["item"], meta).to_numpy()
        out.append(table)
    columns = ["family", "item", "label", "works", "begin", "end", "strength"]
    table = pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=columns)
    table["family_order"] = table["family"].map({f: i for i, f in enumerate(BURST_ITEMS)})
    table = table.sort_values(["family_order", "strength", "item", "begin"], ascending=[True, False, True, True],
                              kind="stable").drop(columns="family_order").reset_index(drop=True)
    return table.astype({"works": "int64", "begin": "int64", "end": "int64", "strength": "float64"}), tested


def rpys_tables(corpus: Bundle, known: list[pd.DataFrame], meta: pd.DataFrame,
                top: int) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """The spectrum (``year``, ``citations``, ``median``, ``deviation``, ``peak``), the top cited references
    of each peak year (``year``, ``rank``, ``referenced_id``, ``label``, ``citations``) and the counts of
    citations placed in a year or not (a cited work whose year no table knows cannot be placed)."""
    citations = rpys.cited_years(corpus.references, *known)
    spectrum = rpys.spectrum(citations["year"])
    peak_years = rpys.peaks(spectrum)
    spectrum["peak"] = spectrum["year"].isin(peak_years)
    tops = []
    for year in peak_years:
        best = rpys.top_cited(citations, year, top)
        tops.append(best.assign(year=year, rank=np.arange(1, len(best) + 1)))
    columns = ["year", "rank", "referenced_id", "label", "citations"]
    if tops:
        leaders = pd.concat(tops, ignore_index=True)
        leaders["label"] = _reference_labels(leaders["referenced_id"], meta).to_numpy()
        leaders = leaders[columns].astype({"year": "int64", "rank": "int64", "citations": "int64"})
    else:
        leaders = pd.DataFrame({c: pd.Series(dtype="int64" if c in ("year", "rank", "citations") else "string")
                                for c in columns})
    placed = int(citations["year"].notna().sum())
    return spectrum, leaders, {"citations": len(citations), "placed": placed, "unplaced": len(citations) - placed,
                               "peaks": len(peak_years)}


def metadata(corpus: Bundle, *others: pd.DataFrame) -> pd.DataFrame:
    """Metadata (`META`) of the works a cited reference may be: the corpus's, then each other table's."""
    from ..cited import work_metadata

    frames = [work_metadata(corpus.works, corpus.authorships)]
    frames += [t[[c for c in META if c in t.columns]] for t in others if not t.empty]
    return pd.concat(frames, ignore_index=True).drop_duplicates("work_id", keep="first")
