"""The report's "Screening" section: where people's screening stands against the stopping rule, and, with a
labelled review in the spec, the simulation's recall curves and metrics (bib2graph.screening)."""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pandas as pd

from .svgplot import pyplot, svg, table


def svg_recall(curves: pd.DataFrame, summary: dict[str, Any]) -> str:
    """Recall against the share screened, one line per seed, random order's diagonal, a mark where the
    stopping rule fired."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    runs = {r["seed"]: r for r in summary["runs"]}
    for seed, rows in curves.groupby("seed", sort=True):
        run = runs.get(int(seed), {})
        total = max(int(run.get("to_screen") or len(rows)), 1)
        x = np.concatenate([[0.0], rows["step"].to_numpy(dtype=float) / total])
        y = np.concatenate([[0.0], rows["recall"].to_numpy(dtype=float)])
        line, = ax.plot(x, y, linewidth=1.2, label=f"seed {int(seed)}")
        stop = run.get("stopped_at")
        if stop:
            ax.plot([stop / total], [run["recall_at_stop"]], marker="v", color=line.get_color(), markersize=7)
    ax.plot([0, 1], [0, 1], linestyle=":", color="#888", label="random order")
    ax.axhline(summary["stopping"]["recall_target"], color="#c33", linewidth=0.8, linestyle="--",
               label=f"recall target {summary['stopping']['recall_target']:.0%}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("share of the labelled works screened (after the priors)")
    ax.set_ylabel("recall")
    ax.set_title("Screening replayed on the labelled review (▼: the stopping rule says stop)")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return svg(fig)


def _people(people: dict[str, Any]) -> list[str]:
    fired = people.get("rule_fired_after")
    rows = [["works to screen (pooled, not seeds)", people["to_screen"]], ["screened by people", people["screened"]],
            ["of them included", people["included"]], ["of them excluded", people["excluded"]],
            ["not screened", people["not_screened"]],
            ["the stopping rule first said stop after", fired if fired is not None else "not yet"],
            ["now", people["verdict"]]]
    return ["<h3 id=\"screening-people\">People's screening</h3>",
            f"<p>Stopping rule: {html.escape(people['stopping_rule'])}: stop when recall is at least "
            f"{people['recall_target']:.0%} with {people['confidence']:.0%} confidence.</p>",
            table(["", "works"], rows)]


def _simulation(curves: pd.DataFrame, summary: dict[str, Any]) -> list[str]:
    labels, stop = summary["labels"], summary["stopping"]
    rows = [[r["seed"], r["wss95"], r["recall_at_10"], r["atd"], r["stopped_at"] or "never",
             r["recall_at_stop"] if r["recall_at_stop"] is not None else "", r["work_saved_at_stop"] or ""]
            for r in summary["runs"]]
    mean = summary["mean"]
    rows.append(["mean", mean["wss95"], mean["recall_at_10"], mean["atd"], "", stop["mean_recall_at_stop"] or "",
                 stop["mean_work_saved_at_stop"] or ""])
    return ["<h3 id=\"screening-simulation\">Screening replayed on a labelled review</h3>",
            f"<p>{labels['matched']} labelled works of <code>{html.escape(str(labels['file']))}</code> are in the pool "
            f"({labels['includes']} includes, {labels['excludes']} excludes; {labels['unmatched']} labelled works "
            f"are not); {summary['priors']} prior include(s) and exclude(s) drawn per seed. The stopping rule "
            f"stopped {stop['stopped']} of {stop['runs']} runs, {stop['stopped_before_the_end']} before the end, "
            f"and recall had reached its target in {stop['target_met']} of them.</p>",
            '<figure id="screening-recall">' + svg_recall(curves, summary) + "</figure>",
            table(["seed", "WSS@95", "recall after 10%", "ATD (works)", "rule stopped after", "recall there",
                   "work saved there"], rows)]


def section(people: dict[str, Any] | None, curves: pd.DataFrame | None, summary: dict[str, Any] | None) -> list[str]:
    """The HTML of the section (empty when there is nothing to say)."""
    parts = _people(people) if people else []
    if summary is not None and curves is not None:
        parts += _simulation(curves, summary)
    return (["<h2 id=\"screening\">Screening</h2>"] + parts) if parts else []
