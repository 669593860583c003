"""The Snakemake adapter: the one place that reads Snakemake's `snakemake` object.

It routes each job to its phase function, sends the phase's logging to the rule's log file, and
turns a bib2graph error into `results/logs/<job>.error.json` (code, message, exit code) so that
`b2g run` can answer with the right envelope and exit code after Snakemake reports the failure.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

from . import phases
from .atomic import write_json
from .errors import INTERNAL_EXIT, B2GError


ERROR_DIR = Path("results/logs")


def error_file(job_name: str) -> Path:
    return ERROR_DIR / f"{job_name}.error.json"


def _dispatch(smk: Any) -> dict[str, Any]:
    rule, inp, out, spec = smk.rule, smk.input, smk.output, smk.params.spec
    if rule == "seed":
        return phases.run_seed(spec, out.seeds, out.manifest)
    if rule == "chain":
        return phases.run_chain(spec, inp.seeds, out.candidates, str(Path(out.pool[0]).parent), out.manifest)
    if rule == "corpus":
        return phases.run_corpus(spec, inp.seeds, inp.candidates, str(Path(inp.pool[0]).parent),
                                 inp.curation, str(Path(out.screening).parent))
    if rule == "network":
        return phases.run_network(smk.wildcards.kind, spec, str(Path(inp[0]).parent), dict(out.items()))
    if rule == "export":
        return phases.run_export(smk.wildcards.kind, spec, str(Path(inp.nodes).parent),
                                 str(Path(inp.corpus[0]).parent), str(Path(out[0]).parent))
    if rule == "report":
        return phases.run_report(spec, dict(inp.items()), out.html)
    raise RuntimeError(f"no phase for rule {rule!r}")


def _fail(job_name: str, code: str, message: str, exit_code: int, retryable: bool,
          subcode: str | None, details: dict) -> None:
    logging.getLogger("bib2graph").error("%s failed: %s", job_name, message)
    write_json(error_file(job_name), {"job": job_name, "code": code, "subcode": subcode, "message": message,
                                      "exit_code": exit_code, "retryable": retryable, "details": details})
    print(f"bib2graph: {message}", file=sys.stderr)


def run_job(smk: Any) -> None:
    job_name = smk.rule + "".join(f".{v}" for v in smk.wildcards)
    handler = logging.FileHandler(smk.log[0], mode="w", encoding="utf-8") if smk.log else logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    error_file(job_name).unlink(missing_ok=True)
    try:
        counts = _dispatch(smk)
        logging.getLogger("bib2graph").info("%s done: %s", job_name, counts)
    except B2GError as exc:
        _fail(job_name, exc.code, exc.message, exc.exit_code, exc.retryable, exc.subcode, exc.details)
        sys.exit(1)
    except Exception as exc:
        _fail(job_name, "INTERNAL", f"unexpected {type(exc).__name__}: {exc}; this is a bib2graph bug",
              INTERNAL_EXIT, False, None, {})
        raise
    finally:
        root.removeHandler(handler)
        handler.close()
