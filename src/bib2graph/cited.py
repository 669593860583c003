"""The works the pool cites, with what it takes to name them: first author, year, title, venue, DOI.

Co-citation nodes are mostly works outside the corpus, which the corpus tables know only by ID. This
collects their metadata once, from the pool for pooled works and from the source for the others
(OpenAlex: OR-batches of at most 100 IDs through the client, every answer kept in the raw store;
files: whatever the universe holds, no network). It counts citations within the pool rather than the
corpus, so that curation never makes it run again: a work the corpus cites n times is cited at least
n times by the pool, so every co-citation node of any corpus drawn from this pool is covered.
"""

from __future__ import annotations

from typing import Callable

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .tables import CITED, Bundle, conform

META = ["work_id", "first_author", "year", "title", "venue", "doi"]


def work_metadata(works: pd.DataFrame, authorships: pd.DataFrame) -> pd.DataFrame:
    """One row per work: `META`, the first author being the named author of lowest position."""
    named = authorships[authorships["author_name"].notna()]
    first = (named.sort_values(["work_id", "position"], kind="mergesort")
             .drop_duplicates("work_id").set_index("work_id")["author_name"])
    meta = works[["work_id", "year", "title", "venue", "doi"]].copy()
    meta["first_author"] = meta["work_id"].map(first)
    return meta[META].reset_index(drop=True)


def citing_counts(references: pd.DataFrame, min_citing: int) -> pd.Series:
    """Pooled works citing each referenced work, for those cited at least `min_citing` times; most cited
    first, ties by ID (the order look-ups are asked in, so that their batches never change)."""
    counts = references.drop_duplicates(["work_id", "referenced_id"]).groupby("referenced_id").size()
    return _most_cited(counts, min_citing)


def count_citing(referenced: pa.ChunkedArray, min_citing: int) -> pd.Series:
    """`citing_counts` from the `referenced_id` column of a references table, which is unique on
    (work_id, referenced_id) (its schema, checked when written): counted in Arrow, so the tens of millions
    of references of a million works never become pandas rows."""
    found = pc.value_counts(referenced)
    counts = pd.Series(found.field("counts").to_numpy(zero_copy_only=False).astype("int64"),
                       index=pd.Index(found.field("values").to_pandas(), name="referenced_id"))
    return _most_cited(counts, min_citing)


def _most_cited(counts: pd.Series, min_citing: int) -> pd.Series:
    counts = counts[counts >= max(min_citing, 1)]
    frame = counts.rename("citing").rename_axis("work_id").reset_index()
    frame = frame.sort_values(["citing", "work_id"], ascending=[False, True], kind="mergesort")
    return frame.set_index("work_id")["citing"]


Lookup = Callable[[list[str]], tuple[Bundle, dict[str, str]]]


def look_up(source, work_ids: list[str]) -> tuple[Bundle, dict[str, str]]:
    """The records a source holds for `work_ids`, and ``{asked ID: current ID}`` for those OpenAlex
    answered with the work they were merged into (a files universe merges nothing)."""
    found = source.records(work_ids)
    current = source.known_ids(work_ids)   # answered from what `records` fetched: no new request
    return found, {asked: now for asked, now in current.items() if asked != now}


def _under_asked_ids(meta: pd.DataFrame, merged: dict[str, str]) -> pd.DataFrame:
    """`meta` plus, for each merged ID asked, the row of its current work under the asked ID."""
    if not merged:
        return meta
    aliases = pd.DataFrame({"asked": list(merged), "work_id": list(merged.values())})
    again = aliases.merge(meta, on="work_id").drop(columns="work_id").rename(columns={"asked": "work_id"})
    return pd.concat([meta, again[META]], ignore_index=True)


def cited_works(works: pd.DataFrame, authorships: pd.DataFrame, references: pd.DataFrame, min_citing: int,
                max_works: int | None, lookup: Lookup | None) -> tuple[pd.DataFrame, dict]:
    """The `CITED` table of the works the pool (its `works`, `authorships` and `references` tables) cites
    at least `min_citing` times, and counts saying what was looked up (`cited_table` of its counts)."""
    return cited_table(works, authorships, citing_counts(references, min_citing), max_works, lookup)


def cited_table(works: pd.DataFrame, authorships: pd.DataFrame, counts: pd.Series, max_works: int | None,
                lookup: Lookup | None, parsed: pd.DataFrame | None = None) -> tuple[pd.DataFrame, dict]:
    """The `CITED` table of the works `counts` (`citing_counts`) names, and counts saying what was looked
    up. `works` and `authorships` need only the `META` columns and `author_name`, `position`. Works outside
    the pool are asked of `lookup` (None: not at all), the `max_works` most cited first; a work neither
    pooled nor found takes what the citing records say of it (`parsed`: the first author, year, source
    and DOI of the export files' parsed references, `SOURCE_REFS` columns), and a work nobody describes
    keeps no row (its node is labelled by its ID)."""
    pooled = set(works["work_id"])
    inside = [w for w in counts.index if w in pooled]
    outside = [w for w in counts.index if w not in pooled]
    asked = outside[:max_works] if max_works is not None else outside
    rows = [work_metadata(works, authorships).assign(in_pool=True)]
    found = 0
    if lookup is not None and asked:
        fetched, merged = lookup(asked)
        meta = _under_asked_ids(work_metadata(fetched.works, fetched.authorships), merged)
        meta = meta[meta["work_id"].isin(set(asked))].drop_duplicates("work_id").dropna(how="all", subset=META[1:])
        found = len(meta)
        rows.append(meta.assign(in_pool=False))
    described = 0
    if parsed is not None:
        known = set(pd.concat([r["work_id"] for r in rows]))
        said = parsed[parsed["work_id"].isin(counts.index) & ~parsed["work_id"].isin(known)]
        said = said.drop_duplicates("work_id").dropna(how="all", subset=META[1:])
        described = len(said)
        rows.append(said[META].assign(in_pool=False))
    table = pd.concat(rows, ignore_index=True)
    table = table[table["work_id"].isin(counts.index)]
    table = table.assign(citing=table["work_id"].map(counts).astype("int64"))
    report = {"cited": len(counts), "in_pool": len(inside), "outside_pool": len(outside),
              "asked": len(asked) if lookup is not None else 0, "found": found,
              "beyond_max_works": len(outside) - len(asked), "fetch": lookup is not None,
              "from_references": described}
    return conform(table, CITED), report
