"""The screening model over a workspace: the pool's features, where screening stands, the fitted model.

What is a function of files alone (the pool's features under the spec's `screening.model`, the pooled
and seed IDs, the records the queue shows, the checked spec) is kept by this process, keyed by those
files' size and modification time (and the settings), the last `CACHE` of each kind: a long-lived adapter
(the GUI's API server) re-ranks after a decision by reading the curation file, fitting and scoring, and
nothing else. The features are also kept on disk (`FEATURES_FILE`, the last built, keyed by the version,
the settings and the SHA-256 of the pool's files), so a CLI call reads them instead of building them
again (at 10,000 works, 16 s of TF-IDF and SVD).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .. import __version__, curation, query
from ..atomic import canonical_json, sha256_file, sha256_text
from ..errors import DataError
from ..paths import CURATION_FILE
from ..screening.state import State, ToScreen
from .workspace import Workspace

if TYPE_CHECKING:     # imported where used: `b2g status` asks where screening stands, not for the model
    from ..screening import model
    from ..screening.features import Features

POOL = "results/chain/pool"
SEEDS = "results/seed/seeds.parquet"
CANDIDATES_FILE = "results/chain/candidates.parquet"
FEATURES_FILE = ".snakemake/b2g/features.npz"
CACHE = 2
_cache: dict[str, OrderedDict[tuple, Any]] = {}
_lock = threading.Lock()


def _memo(kind: str, key: tuple, build: Callable[[], Any]) -> Any:
    """`build()`, or what it gave before for the same `key` (the last CACHE keys of each kind)."""
    with _lock:
        found = _cache.setdefault(kind, OrderedDict())
        if key in found:
            found.move_to_end(key)
            return found[key]
    value = build()
    with _lock:
        found[key] = value
        while len(found) > CACHE:
            found.popitem(last=False)
    return value


def _pool(ws: Workspace) -> dict[str, Path]:
    files = {name: ws.path(f"{POOL}/{name}.parquet") for name in ("works", "terms", "references")}
    if not all(p.is_file() for p in files.values()):
        raise DataError("no pooled works yet; `b2g run chain` pools them", code="ARTIFACT_MISSING",
                        details={"file": str(files["works"])})
    return files


def pool_file(ws: Workspace, name: str) -> Path:
    """One of the pool's tables (works, terms, references); ARTIFACT_MISSING before the chain phase."""
    return _pool(ws)[name]


def _stamp(path: Path) -> tuple:
    if not path.is_file():
        return (str(path), None)
    info = path.stat()
    return (str(path), info.st_size, info.st_mtime_ns)


def features(ws: Workspace, settings: dict[str, Any]) -> Features:
    """The pool's features under `settings` (the spec's `screening.model`)."""
    files = _pool(ws)
    candidates = ws.path(CANDIDATES_FILE)
    key = (*(_stamp(p) for p in files.values()), _stamp(candidates), canonical_json(settings))
    return _memo("features", key, lambda: _stored(ws, files, candidates if candidates.is_file() else None, settings))


def _stored(ws: Workspace, files: dict[str, Path], candidates: Path | None, settings: dict[str, Any]) -> Features:
    """The features kept in FEATURES_FILE when they were built from the same files and settings by this
    version, else built and kept there (a read-only workspace builds them every time)."""
    from ..screening.features import load, read, save

    key = sha256_text("|".join([__version__, canonical_json(settings), *(sha256_file(p) for p in files.values()),
                                sha256_file(candidates) if candidates else "-"]))
    path = ws.path(FEATURES_FILE)
    found = load(path, key, settings)
    if found is None:
        found = read(files["works"].parent, candidates, settings)
        try:
            save(found, path, key)
        except OSError:
            pass
    return found


def spec(ws: Workspace) -> dict[str, Any]:
    """The spec, checked as every job would (preflight.check_spec), while the spec file is unchanged."""
    from .preflight import check_spec

    return _memo("spec", (str(ws.root), _stamp(ws.spec_path)), lambda: check_spec(ws))


def current(ws: Workspace, decisions: dict | None = None) -> State:
    """Where screening stands (screening.state) from the pool, the seeds and the curation file."""
    files = _pool(ws)
    if decisions is None:
        decisions = curation.read(ws.path(CURATION_FILE))
    pool, seeds = files["works"], ws.path(SEEDS)
    return _memo("to_screen", (_stamp(pool), _stamp(seeds)),
                 lambda: ToScreen(query.column(pool, "work_id"),
                                  query.column(seeds, "work_id") if seeds.is_file() else ())).state(decisions)


class Records:
    """The pooled works' records as the queue shows them, looked up by work ID."""

    def __init__(self, table) -> None:
        self.table = table.combine_chunks()   # one chunk: a take is one gather, not one per chunk
        self.row = {w: i for i, w in enumerate(table.column("work_id").to_pylist())}

    def get(self, ids: list[str]) -> list[dict[str, Any]]:
        """The records of the pooled works among `ids`, in that order."""
        return self.table.take([self.row[w] for w in ids if w in self.row]).to_pylist()


def records(ws: Workspace) -> Records:
    """Every pooled work's record as the queue shows it (doi, title, year, venue, abstract, authors in
    order, first author) and its chaining step (round, direction, via, links, score)."""
    files = _pool(ws)
    authors, candidates = ws.path(f"{POOL}/authorships.parquet"), ws.path(CANDIDATES_FILE)

    def build() -> Records:
        step = ("c.round, c.direction, c.via, c.links, c.score" if candidates.is_file() else
                "NULL AS round, NULL AS direction, NULL AS via, NULL AS links, NULL AS score")
        join = "LEFT JOIN read_parquet(?) c ON c.work_id = w.work_id AND c.admitted" if candidates.is_file() else ""
        return Records(query.arrow(f"""
            WITH a AS (SELECT work_id, list(author_name ORDER BY position) AS authors,
                              first(author_name ORDER BY position) FILTER (WHERE author_name IS NOT NULL) AS first_author
                       FROM read_parquet(?) GROUP BY work_id)
            SELECT w.work_id, w.doi, w.title, w.year, w.venue, coalesce(a.authors, []) AS authors, a.first_author,
                   w.abstract, {step}
            FROM read_parquet(?) w LEFT JOIN a ON a.work_id = w.work_id {join}""",
            [str(authors), str(files["works"]), *([str(candidates)] if candidates.is_file() else [])]))

    return _memo("records", (_stamp(files["works"]), _stamp(authors), _stamp(candidates)), build)


def fitted(ws: Workspace, now: State, settings: dict[str, Any]) -> model.Fitted:
    """The model fitted on the decisions of `now` (which must be trainable)."""
    from ..screening import model

    found = features(ws, settings)
    index = found.index()
    return model.fit(found, [index[w] for w in now.includes], [index[w] for w in now.excludes], settings)
