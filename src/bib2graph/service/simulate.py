"""`simulate`: replay screening on a labelled review over the workspace's pool (bib2graph.screening.simulation).

The labels file, the number of prior includes and excludes and the seeds come from the options, else from
the spec's `screening.simulation`; the model and the stopping rule are always the spec's, the ones the queue
uses. The curves go to a Parquet table (`--out`, default results/simulations/<labels file's stem>.parquet;
the `simulate` job of the workflow writes results/screening/ for the report), the metrics to the envelope.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..errors import UsageError
from ..progress import counting
from ..screening.labels import pool_identifiers
from ..screening.simulation import replay_labels
from ..spec import resolve_path
from . import ranking
from .outputs import user_output
from .preflight import check_spec
from .result import Result
from .workspace import Workspace, given

OUT = "results/simulations"


def _table_path(ws: Workspace, labels: Path, out: str | None) -> Path:
    """--out as the user wrote it (relative to the current directory, as every option's file is), else
    the default under the workspace."""
    return Path(out).expanduser().absolute() if given("--out", out) else ws.path(f"{OUT}/{labels.stem}.parquet")


def run_simulation(ws: Workspace, labels: str | None, priors: int | None, seeds: tuple[int, ...] | list[int],
                   out: str | None, on_line: Callable[[str], None] | None = None) -> Result:
    """Replay screening on a labelled review; answer with its metrics and where the curves went."""
    spec = check_spec(ws)
    section = spec["screening"]["simulation"]
    named = labels or section["labels"]
    if not named:
        raise UsageError("no labels to replay: pass --labels FILE (SYNERGY's labels.csv form) or set "
                         "screening.simulation.labels in the spec")
    # --labels as the user wrote it (relative to the current directory, as `curate apply FILE` reads);
    # the spec's screening.simulation.labels, like every spec path, relative to the workspace
    path = Path(labels).expanduser().absolute() if labels and not labels.startswith("bundled:") \
        else resolve_path(ws.root, named)
    priors = priors if priors is not None else section["priors"]
    seeds = sorted(set(seeds)) if seeds else list(section["seeds"])
    if priors < 1 or any(s < 0 for s in seeds):
        raise UsageError("--priors must be at least 1 and every --seed at least 0")
    table = user_output(ws, _table_path(ws, path, out), reads=[path])
    features = ranking.features(ws, spec["screening"]["model"])
    with counting("screening replayed") as seen:
        summary = replay_labels(features, pool_identifiers(ranking.pool_file(ws, "works")), path, spec["screening"],
                                priors, seeds, table, seen, named=str(named))
    data: dict[str, Any] = {"workspace": ws.describe(), **summary, "table": str(table)}
    return Result(data=data, warnings=ws.warnings() + _warnings(summary))


def _warnings(summary: dict[str, Any]) -> list[str]:
    labels = summary["labels"]
    if labels["unmatched"]:
        return [f"{labels['unmatched']} of {labels['rows']} labelled works are not in the pool and were left out"]
    return []
