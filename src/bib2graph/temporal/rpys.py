"""Reference publication year spectroscopy (RPYS; Marx, Bornmann, Barth & Leydesdorff 2014).

Definitions. Every cited reference of every corpus work is one citation; its year is the cited work's
publication year. ``N(y)`` is the number of citations to works published in year ``y`` (instances, not
distinct references: a work cited by ten corpus works counts ten times), over every year from the earliest
to the latest cited year (years without citations count 0). The deviation is ``N(y) − median(N(y−2) …
N(y+2))``, the five-year median centred on ``y`` as in Marx et al. and CRExplorer; at the ends of the range
the window holds only the years that exist. A peak is a year whose deviation is positive and at least that
of both neighbours (the spectrogram's local maxima above its median line). For each peak the references
of that year are ranked by their citations (ties by ID), the "seminal works" RPYS looks for.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: the median window: two years either side, as RPYS defines it
HALF_WINDOW = 2


def spectrum(cited_years: pd.Series) -> pd.DataFrame:
    """``year``, ``citations`` (N(y)), ``median`` and ``deviation`` for every year of the cited range.

    ``cited_years`` holds one year per citation (nulls are left out: a reference without a year cannot be
    placed).
    """
    years = pd.to_numeric(cited_years, errors="coerce").dropna().astype("int64")
    if years.empty:
        return pd.DataFrame({"year": pd.Series(dtype="int64"), "citations": pd.Series(dtype="int64"),
                             "median": pd.Series(dtype="float64"), "deviation": pd.Series(dtype="float64")})
    span = np.arange(years.min(), years.max() + 1)
    counts = years.value_counts().reindex(span, fill_value=0).to_numpy()
    medians = np.array([np.median(counts[max(0, i - HALF_WINDOW): i + HALF_WINDOW + 1])
                        for i in range(len(span))])
    return pd.DataFrame({"year": span.astype("int64"), "citations": counts.astype("int64"),
                         "median": medians, "deviation": counts - medians})


def peaks(table: pd.DataFrame) -> list[int]:
    """The peak years of a spectrum: positive deviation, not below either neighbour."""
    dev = table["deviation"].to_numpy()
    out = []
    for i, value in enumerate(dev):
        left = dev[i - 1] if i else -np.inf
        right = dev[i + 1] if i + 1 < len(dev) else -np.inf
        if value > 0 and value >= left and value >= right:
            out.append(int(table["year"].iat[i]))
    return out


def top_cited(citations: pd.DataFrame, year: int, limit: int = 5) -> pd.DataFrame:
    """The references of one cited year with the most citations: ``referenced_id``, ``citations``.

    ``citations`` has one row per citation with ``referenced_id`` and ``year``.
    """
    of_year = citations.loc[pd.to_numeric(citations["year"], errors="coerce") == year, "referenced_id"]
    counted = of_year.value_counts().rename("citations").rename_axis("referenced_id").reset_index()
    counted = counted.sort_values(["citations", "referenced_id"], ascending=[False, True], kind="stable")
    return counted.head(limit).reset_index(drop=True)


def cited_years(references: pd.DataFrame, *known: pd.DataFrame) -> pd.DataFrame:
    """One row per citation of ``references`` (``work_id``, ``referenced_id``) with the cited work's
    ``year``, taken from the first of the ``known`` tables (``work_id``, ``year``) that has it."""
    years = pd.concat([k[["work_id", "year"]].dropna() for k in known], ignore_index=True)
    years = years.drop_duplicates("work_id", keep="first").set_index("work_id")["year"]
    out = references[["work_id", "referenced_id"]].copy()
    out["year"] = pd.to_numeric(out["referenced_id"].map(years), errors="coerce").astype("Int64")
    return out
