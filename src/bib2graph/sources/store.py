"""The raw-response store: every answer OpenAlex gave, kept as it came, before anything reads it.

Layout: one JSON file per request, ``<root>/<key[:2]>/<key>.json``, where ``key`` is the sha256 of the
canonical request (method, path, sorted parameters, ``api_key`` removed). An entry holds

    {"request": {"method", "path", "params"}, "status", "headers", "fetched_at", "body"}

with only the headers that matter later (``x-ratelimit-*``, ``retry-after``, ``location``,
``content-type``; names lower-cased, any ``api_key`` scrubbed from ``location``) and the parsed JSON
body (or null). Entries are written atomically, so a run killed at any point leaves whole entries or
none; a re-run finds them and asks OpenAlex nothing it already has. The client stores only complete,
parseable answers, so an entry is never silently partial.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from ..atomic import canonical_json, sha256_text, write_text

SECRET_PARAMS = frozenset({"api_key"})
_KEPT_HEADERS = ("retry-after", "location", "content-type")
_SECRET_IN_URL = re.compile(r"([?&])api_key=[^&#\s]*&?")


def scrub_url(text: str) -> str:
    """Remove any ``api_key=…`` query parameter from a URL (or any text holding one)."""
    return _SECRET_IN_URL.sub(lambda m: m.group(1), text).replace("?&", "?").rstrip("?&")


@dataclass(frozen=True)
class ApiRequest:
    """What was asked: method, path and parameters, never the key. Hashable and canonical."""

    path: str
    params: tuple[tuple[str, str], ...] = ()
    method: str = "GET"

    @classmethod
    def make(cls, path: str, params: Mapping[str, Any] | None = None, method: str = "GET") -> "ApiRequest":
        clean = {str(k): str(v) for k, v in (params or {}).items() if k not in SECRET_PARAMS and v is not None}
        return cls(path=path, params=tuple(sorted(clean.items())), method=method.upper())

    @property
    def key(self) -> str:
        return sha256_text(canonical_json(self.as_dict()))

    def as_dict(self) -> dict[str, Any]:
        return {"method": self.method, "path": self.path, "params": dict(self.params)}

    def describe(self, limit: int = 160) -> str:
        """A short human form for messages (no key, long filters cut)."""
        query = "&".join(f"{k}={v}" for k, v in self.params if k not in ("select",))
        text = f"{self.method} {self.path}" + (f"?{query}" if query else "")
        return text if len(text) <= limit else text[: limit - 1] + "…"


def kept_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The response headers worth keeping, lower-cased, with secrets scrubbed."""
    kept = {}
    for name, value in headers.items():
        low = name.lower()
        if low.startswith("x-ratelimit-") or low in _KEPT_HEADERS:
            kept[low] = scrub_url(value) if low == "location" else value
    return dict(sorted(kept.items()))


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


class RawStore:
    """Raw OpenAlex responses in a folder (a workspace's ``resources/openalex/``).

    ``refresh=True`` ignores what is stored (every request goes out again) but still writes, so the
    store ends up holding the newest answers.
    """

    def __init__(self, root: str | Path, *, refresh: bool = False,
                 clock: Callable[[], datetime] = _utc_now) -> None:
        self.root = Path(root)
        self.refresh = refresh
        self._clock = clock

    def path_for(self, request: ApiRequest) -> Path:
        key = request.key
        return self.root / key[:2] / f"{key}.json"

    def get(self, request: ApiRequest) -> dict[str, Any] | None:
        """The stored entry for `request`, or None (always None in refresh mode).

        An unreadable file (edited by hand, foreign) counts as absent, so it is fetched and replaced.
        """
        if self.refresh:
            return None
        path = self.path_for(request)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("request") != request.as_dict() or "status" not in entry:
            return None
        return entry

    def put(self, request: ApiRequest, status: int, headers: Mapping[str, str], body: Any) -> dict[str, Any]:
        """Write one entry atomically and return it. `body` is the already-parsed JSON (or None)."""
        entry = {
            "request": request.as_dict(),
            "status": int(status),
            "headers": kept_headers(headers),
            "fetched_at": self._clock().astimezone(timezone.utc).isoformat().replace("+00:00", "Z"),
            "body": body,
        }
        write_text(self.path_for(request), canonical_json(entry) + "\n")
        return entry

    def discard_partial(self) -> int:
        """Delete the temporary files a killed run left beside entries (never an entry itself).

        Call it only while holding the workspace lock: another live writer's temporaries look the same.
        """
        count = 0
        for tmp in self.root.glob("??/.*.json.*.tmp"):
            tmp.unlink(missing_ok=True)
            count += 1
        return count

    def entries(self) -> Iterator[dict[str, Any]]:
        """Every stored entry, in key order (for audits and tests)."""
        for path in sorted(self.root.glob("??/*.json")):
            try:
                yield json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue

    def __len__(self) -> int:
        return sum(1 for _ in self.root.glob("??/*.json"))
