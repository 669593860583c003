"""The screening model over a workspace: the pool's features, where screening stands, the fitted model.

Features are a function of the pool's tables and the spec's `screening.model`; this process keeps the
last ones it built (`CACHE` entries), keyed by those files' size and modification time and by the
settings, so a long-lived adapter (the GUI's API server) re-ranks after a decision without reading the
pool again. The CLI pays the build on every call.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from .. import curation, query
from ..atomic import canonical_json
from ..errors import DataError
from ..paths import CURATION_FILE
from ..screening import model
from ..screening.features import Features, read
from ..screening.state import State, state
from .workspace import Workspace

POOL = "results/chain/pool"
SEEDS = "results/seed/seeds.parquet"
CANDIDATES_FILE = "results/chain/candidates.parquet"
CACHE = 2
_cache: OrderedDict[tuple, Features] = OrderedDict()
_lock = threading.Lock()


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
    """The pool's features under `settings` (the spec's `screening.model`), from this process's cache
    while the pool's files are unchanged."""
    files = _pool(ws)
    candidates = ws.path(CANDIDATES_FILE)
    key = (*(_stamp(p) for p in files.values()), _stamp(candidates), canonical_json(settings))
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    built = read(files["works"].parent, candidates if candidates.is_file() else None, settings)
    with _lock:
        _cache[key] = built
        while len(_cache) > CACHE:
            _cache.popitem(last=False)
    return built


def current(ws: Workspace, decisions: dict | None = None) -> State:
    """Where screening stands (screening.state) from the pool, the seeds and the curation file."""
    files = _pool(ws)
    seeds = ws.path(SEEDS)
    pool_ids = query.column(files["works"], "work_id")
    seed_ids = query.column(seeds, "work_id") if seeds.is_file() else set()
    if decisions is None:
        decisions = curation.read(ws.path(CURATION_FILE))
    return state(pool_ids, seed_ids, decisions)


def fitted(ws: Workspace, now: State, settings: dict[str, Any]) -> model.Fitted:
    """The model fitted on the decisions of `now` (which must be trainable)."""
    found = features(ws, settings)
    index = found.index()
    return model.fit(found, [index[w] for w in now.includes], [index[w] for w in now.excludes], settings)
