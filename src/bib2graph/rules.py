"""The Snakemake adapter: the one place that reads Snakemake's `snakemake` object.

It routes each job to its phase function, sends the phase's logging to the rule's log file, and
turns a bib2graph error into `results/logs/<job>.error.json` (code, message, exit code) so that
`b2g run` can answer with the right envelope and exit code after Snakemake reports the failure.
"""

from __future__ import annotations

import logging
import reprlib
import resource
import signal
import sys
import time
from pathlib import Path
from typing import Any

from . import phases
from .atomic import write_json
from .errors import INTERNAL_EXIT, B2GError
from .paths import ERROR_DIR
from .service.envelope import as_error

#: the job's counts as its log line shows them: a few items of each list (the sources job lists up to
#: 1,000 unparsed references); the manifest holds them all
_BRIEF = reprlib.Repr()
_BRIEF.maxlist, _BRIEF.maxdict, _BRIEF.maxstring, _BRIEF.maxother, _BRIEF.maxlevel = 3, 40, 200, 200, 4


def error_file(job_name: str) -> Path:
    return ERROR_DIR / f"{job_name}.error.json"


def _named(io: Any) -> dict[str, Any]:
    """Snakemake's named input or output list as a plain dict (lists stay lists)."""
    return {name: list(value) if not isinstance(value, str) else str(value) for name, value in io.items()}


def _dispatch(smk: Any) -> dict[str, Any]:
    kind = getattr(smk.wildcards, "kind", None) or getattr(smk.wildcards, "part", None)
    return phases.run(smk.rule, kind, smk.params.spec, _named(smk.input), _named(smk.output), int(smk.threads))


def _fail(job_name: str, code: str, message: str, exit_code: int, retryable: bool,
          subcode: str | None, details: dict) -> None:
    logging.getLogger("bib2graph").error("%s failed: %s", job_name, message)
    write_json(error_file(job_name), {"job": job_name, "code": code, "subcode": subcode, "message": message,
                                      "exit_code": exit_code, "retryable": retryable, "details": details})
    print(f"bib2graph: {message}", file=sys.stderr)


def _peak_mb() -> float:
    """The job's peak resident memory (VmHWM: exact, where Snakemake's benchmark samples every 30 s), plus
    the largest peak of the processes it forked (networks.beside: the export job's CSV): an upper bound, as
    pages a child shares with the job count twice."""
    status = Path("/proc/self/status")
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    for line in status.read_text().splitlines() if status.exists() else []:
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024 + children
    return float("nan")


def _interrupt(_signum, _frame) -> None:
    raise KeyboardInterrupt


def run_job(smk: Any) -> None:
    job_name = smk.rule + "".join(f".{v}" for v in smk.wildcards)
    handler = logging.FileHandler(smk.log[0], mode="w", encoding="utf-8") if smk.log else logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    error_file(job_name).unlink(missing_ok=True)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        start = time.perf_counter()
        counts = _dispatch(smk)
        logging.getLogger("bib2graph").info("%s done in %.1f s, peak memory %.0f MB: %s", job_name,
                                            time.perf_counter() - start, _peak_mb(), _BRIEF.repr(counts))
    except KeyboardInterrupt:   # Ctrl-C or SIGTERM: temporary files are gone already; no traceback
        logging.getLogger("bib2graph").error("%s interrupted", job_name)
        print(f"bib2graph: {job_name} interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as exc:
        known = as_error(exc)   # an OSError (disk full, permissions) is the workspace's, not a bug
        if isinstance(known, B2GError):
            _fail(job_name, known.code, known.message, known.exit_code, known.retryable, known.subcode,
                  known.details)
            sys.exit(1)
        _fail(job_name, "INTERNAL", f"unexpected {type(exc).__name__}: {exc}; this is a bib2graph bug",
              INTERNAL_EXIT, False, None, {})
        raise
    finally:
        root.removeHandler(handler)
        handler.close()
