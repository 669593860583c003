"""`monitor`: ask OpenAlex for new works citing the included corpus; safe to run from cron.

A lock (a second monitor exits 5 at once), an overall timeout (exit 4), no prompt, an appended log
file (`results/logs/monitor.log`), and a non-zero exit only for real failures: nothing new is exit 0.
"""

from __future__ import annotations

import logging
import signal
from contextlib import contextmanager

from filelock import FileLock, Timeout

from .. import curation, monitor, query
from ..errors import DataError, DependencyError, NetworkError, WorkspaceLockedError
from ..ids import short_id
from ..paths import CURATION_FILE
from ..sources.openalex import OpenAlexClient
from ..sources.openalex_source import STORE_DIR
from ..sources.store import RawStore
from .preflight import check_spec
from .result import Result
from .workspace import Workspace


@contextmanager
def _deadline(seconds: float):
    def expire(*_):
        raise NetworkError(f"monitoring took longer than {seconds:g} s; OpenAlex may be slow, try later",
                           code="UPSTREAM_TIMEOUT")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _log(ws: Workspace) -> logging.Logger:
    path = ws.path("results/logs/monitor.log")
    path.parent.mkdir(parents=True, exist_ok=True)
    logger = logging.getLogger("bib2graph.monitor")
    if not any(getattr(h, "baseFilename", None) == str(path) for h in logger.handlers):
        handler = logging.FileHandler(path, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return logger


def run_monitor(ws: Workspace, stamp: str, timeout: float) -> Result:
    spec = check_spec(ws)
    if spec["source"]["kind"] != "openalex":
        raise DependencyError("monitoring asks OpenAlex for new citing works; it needs `source.kind: openalex`",
                              code="SOURCE_UNSUPPORTED")
    corpus_path = ws.path("results/corpus/works.parquet")
    if not corpus_path.is_file():
        raise DataError("no corpus yet: run `b2g run` before monitoring it", code="ARTIFACT_MISSING")
    lock = FileLock(str(ws.path("resources/monitor/.monitor.lock")))
    ws.path("resources/monitor").mkdir(parents=True, exist_ok=True)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise WorkspaceLockedError("another `b2g monitor` is running in this workspace") from None
    log = _log(ws)
    try:
        corpus = sorted(query.column(corpus_path, "work_id"))
        pending = monitor.read_pending(ws.root)
        known = _known(ws) | {short_id(w["id"]) for w in pending}
        store = RawStore(ws.path(str(STORE_DIR)), refresh=True)  # ask afresh, keep the answers
        with _deadline(timeout), OpenAlexClient.from_settings(spec["source"]["openalex"], store=store) as client:
            citing = client.citing(corpus)
        new = monitor.new_citing(citing, known, stamp[:10])
        if new:
            monitor.write_pending(ws.root, pending + new)
        report = monitor.write_delta(ws.root, stamp.replace(":", ""), new, len(corpus))
        log.info("checked %d corpus works; %d new citing works; %d pending", len(corpus), len(new),
                 len(pending) + len(new))
    except Exception as exc:
        log.error("monitor failed: %s", getattr(exc, "message", exc))
        raise
    finally:
        lock.release()
    return Result(data={"workspace": ws.describe(), "corpus_works_checked": len(corpus), "new": len(new),
                        "new_ids": [short_id(w["id"]) for w in new],
                        "pending": len(pending) + len(new), "report": str(report),
                        "next": "b2g run" if new else None}, warnings=ws.warnings())


def _known(ws: Workspace) -> set[str]:
    """Every work the review has met: pooled, a chaining candidate (admitted or not), or decided."""
    known = set(curation.read(ws.path(CURATION_FILE)))
    for table in ("results/chain/pool/works.parquet", "results/chain/candidates.parquet"):
        if ws.path(table).is_file():
            known |= query.column(ws.path(table), "work_id")
    return known
