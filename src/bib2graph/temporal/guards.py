"""Which works may enter a trend. OpenAlex's data has defects that look like change over time:

* ``no_year``: a work without a publication year cannot be placed in a year or slice;
* ``topic_triple``: about 22M mostly non-English works carry the same three topics (T14423, T13154,
  T14235) with fixed scores; their topics, and the works themselves, are not evidence of a subject;
* ``dated_after_update``: a publication date later than the record's ``updated_date`` was not set by
  publication but by a bulk update of the record (typically an ingest date written as the publication
  date); such works pile up in the latest years and fake a rise.

Each excluded work is counted under the first guard it fails, in this order; trends never read
``updated_date`` otherwise, so bulk re-dating of records does not enter them.
"""

from __future__ import annotations

import pandas as pd

from ..networks.terms import TOPIC_TRIPLE
from ..tables import Bundle

GUARDS = ("no_year", "topic_triple", "dated_after_update")


def _triple_works(terms: pd.DataFrame) -> pd.Index:
    topics = terms[terms["field"] == "topics"]
    if topics.empty:
        return pd.Index([])
    per_work = topics.groupby("work_id")["term_id"].agg(lambda s: frozenset(s) == TOPIC_TRIPLE)
    return per_work.index[per_work.to_numpy(dtype=bool)]


def _day(values: pd.Series) -> pd.Series:
    """The calendar day of an ISO date or timestamp (null when there is none)."""
    return pd.to_datetime(values.astype("string").str[:10], errors="coerce", format="%Y-%m-%d")


def excluded(bundle: Bundle) -> pd.Series:
    """The guard each work fails (``GUARDS``), or null for the works trends may use; indexed by work_id."""
    works = bundle.works.set_index("work_id")
    reason = pd.Series(pd.NA, index=works.index, dtype="string")
    published, updated = _day(works["publication_date"]), _day(works["updated_date"])
    checks = {
        "no_year": works["year"].isna(),
        "topic_triple": works.index.isin(_triple_works(bundle.terms)),
        "dated_after_update": (published > updated).fillna(False),
    }
    for name in reversed(GUARDS):        # the first guard in GUARDS order wins
        reason[pd.Series(checks[name], index=works.index).to_numpy(dtype=bool)] = name
    return reason


def counts(reasons: pd.Series) -> dict[str, int]:
    """Works excluded per guard (every guard named, zeros included) and the works kept."""
    out = {name: int((reasons == name).sum()) for name in GUARDS}
    out["kept"] = int(reasons.isna().sum())
    return out
