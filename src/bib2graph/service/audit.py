"""Who made a decision and when: the audit fields every adapter stamps on curation.tsv rows.

Kept out of `curate` so that layer stays deterministic (the clock and the person are its inputs).
"""

from __future__ import annotations

import getpass
import os
from datetime import datetime, timezone

from ..curation import says_something
from ..errors import UsageError
from ..textio import SURROGATE


def who(by: str | None) -> str:
    """`by` when it names someone (not only spaces), else B2G_USER, else the login name."""
    if by and says_something(by):
        return by
    try:
        found = os.environ.get("B2G_USER") or getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
    if SURROGATE.search(found):
        raise UsageError("B2G_USER is not valid UTF-8 text; set it in UTF-8 or pass --by",
                         details={"parameter": "B2G_USER"})
    return found


def now() -> str:
    """The current UTC time to the second, as ISO 8601 with Z."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
