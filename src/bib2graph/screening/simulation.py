"""Screening replayed on a labelled review: how soon the model finds the includes, and whether the
stopping rule would have stopped in time.

The labelled works (a labels file in SYNERGY's form: ``openalex_id`` or ``doi``, ``label_included``)
that the pool holds are the works to screen. For each seed, `priors` includes and `priors` excludes are
drawn (numpy's PCG64 seeded with the seed, from the work-ID-sorted includes, then the excludes) and
decided first; then, as a reviewer with the queue would, the model is fitted on every decision so far
and the top-ranked work is decided with its true label, until every include is found and the stopping
rule has fired, or nothing is left. The model and the rule are those of the queue (`model`, `stopping`).

Refits (`refit`, a share): a fit costs time in proportion to the decisions it learns from, so refitting
after every one of them makes a replay's cost grow with the square of its length (a 10,000-work review:
18 ms a decision at the 500th, 0.3 s by the 2,500th). The replay refits once the decisions since the last
fit reach ``max(1, floor(refit · decided))``, ``decided`` counting the priors: after every decision
below ``2/refit`` decided, then in batches of that share, taking the works in the order of the last fit
in between (batch-mode active learning). The number of fits then grows with the logarithm of the
length. ``refit = 0`` refits after every decision.

One run gives the screening order (priors left out), the recall after each work, the rule's p-value
after each work, and: WSS@95, recall after 10% screened, ATD, and where the rule first fired with the
true recall and the work saved there (`metrics`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..errors import DataError
from . import metrics, model, stopping
from .features import Features


@dataclass
class Run:
    """One replay."""

    seed: int
    priors: list[str]
    order: np.ndarray          # feature rows in screening order, priors left out
    labels: np.ndarray         # their labels
    p_values: np.ndarray       # the rule's p-value after each
    to_screen: int             # works to screen after the priors

    def summary(self, recall: float, confidence: float) -> dict[str, Any]:
        """The run's metrics (see the module docstring); unscreened works count as found last."""
        labels = np.concatenate([self.labels, np.zeros(self.to_screen - len(self.labels), dtype=np.int64)])
        total = int(labels.sum())
        fired = np.flatnonzero(self.p_values < 1 - confidence)
        stop_at = int(fired[0]) + 1 if len(fired) else None
        found_at_stop = int(self.labels[:stop_at].sum()) if stop_at else None
        mean, share = metrics.atd(labels)
        return {"seed": self.seed, "priors": self.priors, "to_screen": self.to_screen, "includes": total,
                "wss95": round(metrics.wss(labels, 0.95), 6), "recall_at_10": round(metrics.recall_at(labels, 0.10), 6),
                "atd": round(mean, 6), "atd_fraction": round(share, 6),
                "stopped_at": stop_at,
                "recall_at_stop": round(found_at_stop / total, 6) if stop_at else None,
                "work_saved_at_stop": round(1 - stop_at / self.to_screen, 6) if stop_at else None,
                "recall_target_met": (found_at_stop / total >= recall) if stop_at else None}


def draw_priors(work_ids: np.ndarray, y: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Positions of `k` includes and `k` excludes, drawn with `seed` (see the module docstring)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    chosen = []
    for label in (1, 0):
        pool = np.flatnonzero(y == label)
        pool = pool[np.argsort(work_ids[pool].astype(str), kind="stable")]
        if len(pool) < k:
            raise ValueError(f"{k} prior {'includes' if label else 'excludes'} asked, {len(pool)} labelled")
        chosen.extend(rng.choice(pool, size=k, replace=False).tolist())
    return np.array(sorted(chosen), dtype=np.int64)


def replay(features: Features, rows: np.ndarray, y: np.ndarray, priors: np.ndarray, settings: dict[str, Any],
           recall: float, confidence: float, seed: int,
           on_step: Callable[[int], None] | None = None, refit: float = 0.0) -> Run:
    """One replay over the labelled `rows` (feature rows, ascending) with labels `y`, starting from the
    positions `priors` (into `rows`), refitting as `refit` says (the module docstring)."""
    if np.any(np.diff(rows) <= 0):
        raise ValueError("rows must be ascending")
    known = np.zeros(len(rows), dtype=bool)
    known[priors] = True
    total = int(y[~known].sum())
    order: list[int] = []
    p_values: list[float] = []
    found = 0
    alpha = 1 - confidence
    fired = False
    ranked, cursor = np.empty(0, dtype=np.int64), 0
    while not known.all() and (found < total or not fired):
        if cursor == len(ranked) or cursor >= max(1, int(refit * (len(priors) + len(order)))):
            fitted = model.fit(features, rows[known & (y == 1)], rows[known & (y == 0)], settings)
            best, _ = model.rank(fitted, rows[~known])
            ranked, cursor = np.searchsorted(rows, best), 0   # positions into `rows`, best first
        pick = int(ranked[cursor])
        cursor += 1
        known[pick] = True
        order.append(pick)
        found += int(y[pick])
        p = stopping.p_value(y[order], len(rows) - len(priors), recall) if found else 1.0
        p_values.append(p)
        fired = fired or p < alpha
        if on_step is not None:
            on_step(len(order))
    ids = features.work_ids[rows[priors]]
    return Run(seed, [str(i) for i in ids], rows[np.array(order, dtype=np.int64)], y[order].astype(np.int64),
               np.array(p_values), len(rows) - len(priors))


def labelled_rows(features: Features, labels: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(feature rows, labels) of the labelled works the pool holds, in row order; `labels` has work_id
    and label columns (one row per work)."""
    index = features.index()
    pairs = sorted((index[w], int(v)) for w, v in zip(labels["work_id"], labels["label"]) if w in index)
    rows = np.array([r for r, _ in pairs], dtype=np.int64)
    return rows, np.array([v for _, v in pairs], dtype=np.int64)


def simulate(features: Features, labels: pd.DataFrame, settings: dict[str, Any], priors: int, seeds: list[int],
             recall: float, confidence: float,
             on_step: Callable[[int], None] | None = None, refit: float = 0.0) -> list[Run]:
    """One replay per seed over the labelled works of the pool."""
    rows, y = labelled_rows(features, labels)
    if y.sum() < priors + 1 or (1 - y).sum() < priors + 1:
        raise DataError(f"the pool holds {int(y.sum())} labelled includes and {int((1 - y).sum())} excludes; "
                        f"{priors} of each are drawn as priors and at least one of each must be left to find",
                        code="LABELS_INVALID")
    done = 0

    def step(n: int) -> None:
        if on_step is not None:
            on_step(done + n)
    runs = []
    for seed in seeds:
        chosen = draw_priors(features.work_ids[rows], y, priors, seed)
        runs.append(replay(features, rows, y, chosen, settings, recall, confidence, seed, step, refit))
        done += len(runs[-1].order)
    return runs


def curve_table(features: Features, runs: list[Run]) -> pd.DataFrame:
    """Every run's screening order as rows: seed, step (1-based), work, label, includes found so far,
    recall, the rule's p-value and whether it says stop there."""
    frames = []
    for run in runs:
        total = max(int(run.labels.sum()), 1)
        found = np.cumsum(run.labels)
        frames.append(pd.DataFrame({
            "seed": run.seed, "step": np.arange(1, len(run.order) + 1, dtype=np.int64),
            "work_id": features.work_ids[run.order].astype(str) if len(run.order) else np.array([], dtype=str),
            "label": run.labels.astype(np.int64), "found": found.astype(np.int64),
            "recall": np.round(found / total, 9), "p_value": np.round(run.p_values, 9)}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["seed", "step", "work_id", "label", "found", "recall", "p_value"])


def summarise(runs: list[Run], recall: float, confidence: float) -> dict[str, Any]:
    """Each run's metrics and their means; how often the stopping rule fired and held its promise."""
    rows = [run.summary(recall, confidence) for run in runs]
    stopped = [r for r in rows if r["stopped_at"] is not None]
    mean = lambda key, among: round(float(np.mean([r[key] for r in among])), 6) if among else None  # noqa: E731
    return {"runs": rows,
            "mean": {"wss95": mean("wss95", rows), "recall_at_10": mean("recall_at_10", rows),
                     "atd": mean("atd", rows), "atd_fraction": mean("atd_fraction", rows)},
            "stopping": {"method": stopping.METHOD, "recall_target": recall, "confidence": confidence,
                         "runs": len(rows), "stopped": len(stopped),
                         "stopped_before_the_end": sum(r["stopped_at"] < r["to_screen"] for r in stopped),
                         "target_met": sum(bool(r["recall_target_met"]) for r in stopped),
                         "mean_recall_at_stop": mean("recall_at_stop", stopped),
                         "mean_work_saved_at_stop": mean("work_saved_at_stop", stopped)}}


def replay_labels(features: Features, dois: dict[str, str], labels_path: str | Path, screening: dict[str, Any],
                  priors: int, seeds: list[int], table_path: str | Path,
                  on_step: Callable[[int], None] | None = None, named: str | None = None) -> dict[str, Any]:
    """Replay the review labelled in `labels_path` (`named` so by the user) over the pool of `features`
    (`dois`: DOI → pooled work) under the spec's `screening` section; write the curves to `table_path`;
    return the summary."""
    from ..tables import SIMULATION, write_table
    from .labels import read

    found = read(labels_path, set(features.work_ids), dois)
    stop = screening["stopping"]
    runs = simulate(features, found.table, screening["model"], priors, seeds, stop["recall"], stop["confidence"],
                    on_step, float(screening["simulation"]["refit"]))
    write_table(curve_table(features, runs), SIMULATION, table_path)
    labelled = found.table["label"]
    return {"labels": {"file": named or str(labels_path), "rows": found.rows, "matched": len(labelled),
                       "unmatched": found.unmatched, "includes": int(labelled.sum()),
                       "excludes": int(len(labelled) - labelled.sum())},
            "priors": priors, "seeds": list(seeds), **summarise(runs, stop["recall"], stop["confidence"])}
