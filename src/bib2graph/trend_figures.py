"""The report's "Change over time" section: burst lists as CiteSpace draws them, the RPYS spectrogram,
the timeline of each sliced network's clusters, the strategic diagram of each slice and the thematic
flows between slices. Inline SVG with text kept as text, so every label can be read back."""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pandas as pd

from .svgplot import pyplot, svg, table

#: bursts drawn per family, strongest first (the table in results/trends/bursts.parquet has them all)
BURSTS_SHOWN = 25
_BURST_RED = "#c0392b"
_LINE = "#8fa7c4"
_CUT = 60


def _short(text: Any, cut: int = _CUT) -> str:
    text = "" if text is None or (isinstance(text, float) and np.isnan(text)) else str(text)
    return text if len(text) <= cut else text[: cut - 1].rstrip() + "…"


def svg_bursts(family: str, bursts: pd.DataFrame, first: int, last: int) -> str:
    """The strongest bursts of a family: a thin line over the years, red over the burst (CiteSpace)."""
    plt = pyplot()
    shown = bursts.sort_values(["strength", "item"], ascending=[False, True], kind="stable").head(BURSTS_SHOWN)
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(shown) + 1.2))
    for row, b in enumerate(shown.itertuples()):
        y = len(shown) - row
        ax.plot([first, last + 1], [y, y], color=_LINE, linewidth=1.5, solid_capstyle="butt")
        ax.plot([b.begin, b.end + 1], [y, y], color=_BURST_RED, linewidth=5, solid_capstyle="butt")
        ax.text(first - 0.5, y, _short(b.label or b.item), ha="right", va="center", fontsize=7)
        ax.text(last + 1.5, y, f"{b.begin}–{b.end}  {b.strength:.2f}", ha="left", va="center", fontsize=7)
    ax.set_xlim(first, last + 1)
    ax.set_ylim(0.3, len(shown) + 0.7)
    ax.set_yticks([])
    ax.set_title(f"Bursts of {family} (strongest {len(shown)} of {len(bursts)}; years, strength)", fontsize=9)
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    fig.subplots_adjust(left=0.42, right=0.8, top=1 - 0.5 / fig.get_figheight(), bottom=0.45 / fig.get_figheight())
    return svg(fig)


def svg_rpys(spectrum: pd.DataFrame) -> str:
    """Citations per cited year (bars) and their deviation from the 5-year median (line); peaks named."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 3))
    ax.bar(spectrum["year"], spectrum["citations"], color="#c9d6e8", label="citations N(y)")
    ax.plot(spectrum["year"], spectrum["deviation"], color="#3b6ea5", linewidth=1, label="N(y) − 5-year median")
    for p in spectrum[spectrum["peak"]].itertuples():
        ax.annotate(str(p.year), (p.year, p.deviation), textcoords="offset points", xytext=(0, 4),
                    ha="center", fontsize=6, color=_BURST_RED)
    ax.axhline(0, color="#999", linewidth=0.5)
    ax.set_xlabel("publication year of the cited work")
    ax.set_title("Reference publication year spectroscopy", fontsize=9)
    ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    return svg(fig)


def _cluster_names(nodes: pd.DataFrame) -> pd.Series:
    """A cluster's name in a slice: its node of most occurrences (ties by ID)."""
    ranked = nodes.sort_values(["slice", "cluster", "occurrences", "node_id"],
                               ascending=[True, True, False, True], kind="stable")
    return ranked.groupby(["slice", "cluster"])["label"].first()


def svg_timeline(kind: str, nodes: pd.DataFrame, alignment: pd.DataFrame, slices: list[str]) -> str:
    """Clusters per slice (circle area: members) joined where one continues into the next (Jaccard)."""
    plt = pyplot()
    sizes = nodes.groupby(["slice", "cluster"]).size()
    names = _cluster_names(nodes)
    top = max((int(nodes.loc[nodes["slice"] == s, "cluster"].max()) for s in slices
               if (nodes["slice"] == s).any()), default=1)
    shown = min(top, 12)
    fig, ax = plt.subplots(figsize=(9, 0.45 * shown + 1.4))
    x = {s: i for i, s in enumerate(slices)}
    for link in alignment.itertuples():
        if link.from_cluster <= shown and link.to_cluster <= shown:
            ax.plot([x[link.from_slice], x[link.to_slice]], [-link.from_cluster, -link.to_cluster],
                    color=_LINE, linewidth=0.5 + 4 * link.jaccard, zorder=1)
    for (name, cluster), size in sizes.items():
        if cluster <= shown:
            ax.scatter([x[name]], [-cluster], s=12 + 4 * size, color="#3b6ea5", zorder=2)
            ax.text(x[name] + 0.08, -cluster + 0.18, _short(names[(name, cluster)], 28), fontsize=6)
    ax.set_xticks(range(len(slices)), slices, fontsize=7)
    ax.set_yticks([-c for c in range(1, shown + 1)], [f"cluster {c}" for c in range(1, shown + 1)], fontsize=7)
    ax.set_xlim(-0.4, len(slices) - 0.2)
    ax.set_ylim(-shown - 0.6, -0.4)
    ax.set_title(f"{kind}: clusters per time slice (lines: continuation, width by Jaccard)", fontsize=9)
    fig.tight_layout()
    return svg(fig)


def svg_strategic(name: str, themes: pd.DataFrame) -> str:
    """Themes of one slice by centrality (x) and density (y), split at the medians into quadrants."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    cx, cy = themes["centrality"].median(), themes["density"].median()
    ax.scatter(themes["centrality"], themes["density"], s=20 + 3 * themes["size"], color="#3b6ea5", alpha=0.7)
    for t in themes.itertuples():
        ax.annotate(_short(t.label, 40), (t.centrality, t.density), fontsize=6, textcoords="offset points",
                    xytext=(3, 3), annotation_clip=True).set_clip_on(True)
    for values, setter in ((themes["centrality"], ax.set_xlim), (themes["density"], ax.set_ylim)):
        low, high = float(values.min()), float(values.max())
        pad = 0.2 * (high - low) or max(abs(high), 1.0) * 0.2
        setter(low - pad, high + pad)
    ax.axvline(cx, color="#999", linewidth=0.6)
    ax.axhline(cy, color="#999", linewidth=0.6)
    for text, (hx, vy) in {"motor": ("right", "top"), "niche": ("left", "top"), "basic": ("right", "bottom"),
                           "emerging or declining": ("left", "bottom")}.items():
        ax.text(0.98 if hx == "right" else 0.02, 0.97 if vy == "top" else 0.03, text, transform=ax.transAxes,
                ha=hx, va=vy, fontsize=7, color="#777")
    ax.set_xlabel("centrality (Callon)")
    ax.set_ylabel("density (Callon)")
    ax.set_title(f"Strategic diagram {name}", fontsize=9)
    fig.tight_layout()
    return svg(fig)


def svg_flows(themes: pd.DataFrame, flows: pd.DataFrame, slices: list[str]) -> str:
    """Themes as boxes per slice (height: occurrences), bands between them by weighted inclusion."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.5))
    place = {}
    for i, name in enumerate(slices):
        here = themes[themes["slice"] == name].sort_values("cluster")
        total = max(float(here["occurrences"].sum()), 1.0)
        y = 0.0
        for t in here.itertuples():
            h = 0.9 * t.occurrences / total
            ax.add_patch(plt.Rectangle((i - 0.06, y), 0.12, h, color="#3b6ea5", alpha=0.8))
            ax.text(i + 0.08, y + h / 2, _short(t.label, 26), fontsize=5.5, va="center")
            place[(name, t.cluster)] = y + h / 2
            y += h + 0.1 / max(len(here), 1)
    for f in flows.itertuples():
        a, b = place.get((f.from_slice, f.from_cluster)), place.get((f.to_slice, f.to_cluster))
        if a is not None and b is not None:
            i = slices.index(f.from_slice)
            xs = np.linspace(i + 0.06, i + 0.94, 20)
            ys = a + (b - a) * (3 * ((xs - xs[0]) / (xs[-1] - xs[0])) ** 2 - 2 * ((xs - xs[0]) / (xs[-1] - xs[0])) ** 3)
            ax.plot(xs, ys, color=_BURST_RED, alpha=0.35, linewidth=0.5 + 6 * f.inclusion)
    ax.set_xticks(range(len(slices)), slices, fontsize=7)
    ax.set_yticks([])
    ax.set_xlim(-0.3, len(slices) - 0.3)
    ax.set_ylim(-0.05, 1.2)
    ax.set_title("Thematic evolution (band width: weighted inclusion)", fontsize=9)
    fig.tight_layout()
    return svg(fig)


def section(trends: dict[str, Any] | None, sliced: dict[str, dict[str, pd.DataFrame]],
            manifests: dict[str, dict]) -> list[str]:
    """The HTML of "Change over time": bursts, RPYS, and per sliced network its timeline, strategic
    diagrams and flows. `trends` holds the trend tables, `sliced` each kind's slice tables."""
    if trends is None:
        return []
    counts = manifests.get("trends", {}).get("counts", {})
    parts = ["<h2 id=\"change-over-time\">Change over time</h2>"]
    guards = counts.get("guards", {})
    if guards:
        left_out = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in guards.items() if k != "kept" and v)
        parts.append(f"<p>Trends read {guards.get('kept', 0)} works" + (f"; left out: {html.escape(left_out)}"
                     if left_out else "; no work was left out by the data guards") + ".</p>")
    years = counts.get("years")
    bursts = trends["bursts"]
    if years:
        parts.append("<h3>Bursts</h3>")
        for family in ("references", "terms", "authors"):
            rows = bursts[bursts["family"] == family]
            if len(rows):
                parts.append(f'<figure class="bursts" id="bursts-{family}">'
                             + svg_bursts(family, rows, years[0], years[1]) + "</figure>")
        if not len(bursts):
            parts.append("<p>No burst was found with these settings.</p>")
    spectrum, top = trends["rpys"], trends["rpys_top"]
    if len(spectrum):
        placed = counts.get("rpys", {})
        parts.append("<h3>Reference publication year spectroscopy</h3>")
        if placed:
            parts.append(f"<p>{placed.get('placed', 0)} of {placed.get('citations', 0)} citations have a cited "
                         "year (a cited work the data holds no record of cannot be placed).</p>")
        parts.append('<figure id="rpys">' + svg_rpys(spectrum) + "</figure>")
        parts.append(table(["peak year", "rank", "cited work", "citations"],
                           [[r.year, r.rank, r.label or r.referenced_id, r.citations] for r in top.itertuples()]))
    for kind, tables in sorted(sliced.items()):
        nodes = tables["nodes"]
        names = sorted(nodes["slice"].unique(), key=lambda s: int(s.split("-")[0])) if len(nodes) else []
        if not names:
            continue
        parts.append(f"<h3>{html.escape(kind)} over time</h3>")
        parts.append(f'<figure class="timeline" id="timeline-{html.escape(kind)}">'
                     + svg_timeline(kind, nodes, tables["alignment"], names) + "</figure>")
        themes = tables["themes"]
        if kind == "keywords" and len(themes):
            for name in names:
                here = themes[themes["slice"] == name]
                if len(here):
                    parts.append(f'<figure class="strategic" id="strategic-{name}">'
                                 + svg_strategic(name, here) + "</figure>")
            parts.append('<figure id="flows">' + svg_flows(themes, tables["flows"], names) + "</figure>")
    return parts
