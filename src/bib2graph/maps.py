"""Static pictures of a network's map for the report: coloured by cluster (with its legend's entries),
VOSviewer's overlay coloured by mean publication year, and VOSviewer's item density view. SVG made with
matplotlib, deterministic (see `svgplot.svg`).

The SVG is meant to be read back (the tests do): the node marks are the `<use>` elements of the
groups ``nodes-<k>`` (one per marker size); each label is the group ``label-<k>`` holding its box and its text; the overlay's
colour bar is the group ``colorbar``. The density view's grid is the image ``density``: a PNG of one pixel per
grid cell (row 0 at the bottom), viridis of the cell's value.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .density import Density, item_density
from .palette import OTHER_COLOUR, cluster_colour, entry_colour

MAX_NODES = 2000     # the strongest nodes are drawn; a note says so when some are left out
MAX_EDGES = 1500     # the heaviest edges between drawn nodes
MAX_LABELS = 25      # label candidates, strongest first; those that would overlap are left out
LABEL_CHARS = 28
FONT_SIZE = 7.0
DPI = 72             # one pixel is one point, so SVG coordinates are display coordinates
_LIMIT = 1.08        # axes span [-_LIMIT, _LIMIT]: layouts lie within [-1, 1]
_PAD = 1.5           # pixels kept free around a label box (its drawn pad is 0.15 × font size ≈ 1 px)
NO_YEAR_COLOUR = "#dddddd"
DENSITY_WEIGHT = "occurrences"   # the node metric the density view weights by (VOSviewer's default: weight)


def cluster_colours(clusters) -> list[str]:
    """One colour per node: its cluster's (`bib2graph.palette`, as the GUI draws it)."""
    return [cluster_colour(c) for c in clusters]


def legend(clusters: list[dict]) -> tuple[list[dict], dict | None]:
    """The map's legend from metrics.json's `clusters`: (cluster, colour, label, size) of each cluster with a
    colour of its own, and one summary (clusters, size) of those drawn in the shared OTHER_COLOUR, or None:
    the map cannot tell those apart, so neither does the legend."""
    own, other = [], []
    for entry in clusters:
        colour = entry_colour(entry)
        item = {"cluster": entry.get("cluster"), "colour": colour, "label": entry.get("label") or "",
                "size": entry.get("size")}
        (other if colour == OTHER_COLOUR else own).append(item)
    if not other:
        return own, None
    return own, {"clusters": len(other), "size": sum(int(o["size"] or 0) for o in other), "colour": OTHER_COLOUR}


def drawn(nodes: pd.DataFrame) -> pd.DataFrame:
    """The nodes the map draws: all, or the MAX_NODES strongest (ties by ID), in node_id order."""
    if len(nodes) <= MAX_NODES:
        return nodes.reset_index(drop=True)
    top = nodes.sort_values(["strength", "node_id"], ascending=[False, True], kind="mergesort").head(MAX_NODES)
    return top.sort_values("node_id", kind="mergesort").reset_index(drop=True)


def _short(label: str) -> str:
    text = " ".join(str(label).split())
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


def _sizes(nodes: pd.DataFrame) -> np.ndarray:
    """Marker areas (pt²) from 6 to 80 in 8 steps, by the square root of strength (occurrences when no
    edges); few sizes let the SVG define each marker once and place it many times."""
    value = nodes["strength"].to_numpy(dtype=float)
    if not np.any(value > 0):
        value = nodes["occurrences"].to_numpy(dtype=float)
    value = np.sqrt(np.maximum(value, 0))
    top = value.max() if len(value) and value.max() > 0 else 1.0
    return 6 + 74 * np.round(7 * value / top) / 7


def _axes():
    """An empty map: square axes over [-_LIMIT, _LIMIT]², no frame; returns (fig, ax)."""
    from .svgplot import pyplot as _pyplot

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 6.2), dpi=DPI)
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.95)
    ax.set_xlim(-_LIMIT, _LIMIT)
    ax.set_ylim(-_LIMIT, _LIMIT)
    ax.set_aspect("equal")
    ax.set_axis_off()
    return fig, ax


def _figure(nodes: pd.DataFrame, edges: pd.DataFrame, colours: list[str]):
    """A figure with the heaviest edges and the node marks drawn; returns (fig, ax)."""
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path

    fig, ax = _axes()
    at = pd.Series(np.arange(len(nodes)), index=nodes["node_id"])
    inside = edges["source"].isin(at.index) & edges["target"].isin(at.index)
    heavy = edges[inside].sort_values(["weight", "source", "target"], ascending=[False, True, True],
                                      kind="mergesort").head(MAX_EDGES)
    xy = nodes[["x", "y"]].to_numpy(dtype=float)
    if len(heavy):   # one path of move-to/line-to pairs: a few bytes an edge in the SVG
        ends = np.stack([xy[at[heavy["source"]].to_numpy()], xy[at[heavy["target"]].to_numpy()]], axis=1)
        codes = np.tile([Path.MOVETO, Path.LINETO], len(heavy))
        lines = PathPatch(Path(ends.reshape(-1, 2), codes), fill=False, edgecolor="#999999", linewidth=0.4,
                          alpha=0.35, zorder=1)
        lines.set_gid("edges")
        ax.add_artist(lines)   # limits are fixed: no need to measure 1,500 segments for them
    sizes, colours = _sizes(nodes), np.asarray(colours)
    for level, size in enumerate(np.unique(sizes)):   # one marker per size, placed many times
        at_size = sizes == size
        marks = ax.scatter(xy[at_size, 0], xy[at_size, 1], s=size, c=colours[at_size], linewidths=0.3,
                           edgecolors="white", zorder=2)
        marks.set_gid(f"nodes-{level}")
    return fig, ax


def _overlaps(box, placed: list) -> bool:
    return any(box.x0 < b.x1 and b.x0 < box.x1 and box.y0 < b.y1 and b.y0 < box.y1 for b in placed)


def place_labels(fig, ax, nodes: pd.DataFrame) -> int:
    """Label the strongest nodes, greedily: each label takes the first of four places around its node
    (above, below, right, left) whose box, with a margin, overlaps no label placed before it and stays
    inside the axes; a label with no such place is left out. Returns the number placed."""
    import io

    from matplotlib.backends.backend_svg import RendererSVG

    width, height = fig.get_size_inches() * 72
    renderer = RendererSVG(width, height, io.StringIO())   # text measured as the SVG will lay it out
    ax.apply_aspect()                      # the axes' final box, so data → display is what is drawn
    frame = ax.get_window_extent(renderer)
    ranked = nodes.sort_values(["strength", "occurrences", "node_id"], ascending=[False, False, True],
                               kind="mergesort").head(MAX_LABELS)
    offset = 0.025
    places = [((0, offset), "center", "bottom"), ((0, -offset), "center", "top"),
              ((offset, 0), "left", "center"), ((-offset, 0), "right", "center")]
    placed: list = []
    for row in ranked.itertuples(index=False):
        for (dx, dy), ha, va in places:
            text = ax.text(row.x + dx, row.y + dy, _short(row.label), fontsize=FONT_SIZE, ha=ha, va=va, zorder=3,
                           bbox={"boxstyle": "square,pad=0.15", "facecolor": "white", "alpha": 0.75,
                                 "edgecolor": "none"})
            box = text.get_window_extent(renderer).padded(_PAD)
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
            if inside and not _overlaps(box, placed):
                text.set_gid(f"label-{len(placed)}")
                placed.append(box)
                break
            text.remove()
    return len(placed)


def svg_map(title: str, nodes: pd.DataFrame, edges: pd.DataFrame) -> str:
    """The map coloured by cluster; `nodes` has node_id, label, x, y, strength, occurrences, cluster."""
    from .svgplot import svg as _svg

    nodes = drawn(nodes)
    fig, ax = _figure(nodes, edges, cluster_colours(nodes["cluster"]))
    place_labels(fig, ax, nodes)
    ax.set_title(title, fontsize=9)
    return _svg(fig)


def year_range(nodes: pd.DataFrame) -> tuple[int, int] | None:
    """The colour scale's whole years: floor of the earliest and ceiling of the latest mean year."""
    years = nodes["mean_year"].dropna()
    if years.empty:
        return None
    low, high = int(np.floor(years.min())), int(np.ceil(years.max()))
    return low, max(high, low + 1)


def svg_overlay(title: str, nodes: pd.DataFrame, edges: pd.DataFrame) -> str | None:
    """VOSviewer's overlay: the map coloured by mean publication year (viridis, grey when unknown), with a
    colour bar; None when no node has a year."""
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize, to_hex

    from .svgplot import svg as _svg

    nodes = drawn(nodes)
    span = year_range(nodes)
    if span is None:
        return None
    norm, cmap = Normalize(*span), colormaps["viridis"]
    years = nodes["mean_year"].to_numpy(dtype=float, na_value=np.nan)
    colours = [NO_YEAR_COLOUR if np.isnan(y) else to_hex(cmap(norm(y))) for y in years]
    fig, ax = _figure(nodes, edges, colours)
    bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.6, pad=0.02)   # before labels:
    bar.ax.set_gid("colorbar")                                                                # it narrows ax
    bar.set_label("mean publication year", fontsize=8)
    bar.ax.tick_params(labelsize=7)
    ticks = np.unique(np.linspace(span[0], span[1], min(span[1] - span[0], 5) + 1).round().astype(int))
    bar.set_ticks(ticks, labels=[str(t) for t in ticks])
    place_labels(fig, ax, nodes)
    ax.set_title(title, fontsize=9)
    return _svg(fig)


def density_of(nodes: pd.DataFrame, weight: str = DENSITY_WEIGHT) -> Density:
    """The item density of all nodes (not only those drawn: the kernel sums are cheap on the grid)."""
    return item_density(nodes["x"].to_numpy(dtype=float), nodes["y"].to_numpy(dtype=float),
                        nodes[weight].to_numpy(dtype=float, na_value=np.nan))


def density_figure(nodes: pd.DataFrame, grid: Density):
    """The density view's figure before its labels: the grid as an image over the map's axes (viridis 0 to 1,
    one pixel per cell, no smoothing, so the picture is the grid) and its colour bar; returns (fig, ax)."""
    fig, ax = _axes()
    low, high = grid.extent
    image = ax.imshow(grid.values, cmap="viridis", origin="lower", extent=(low, high, low, high), vmin=0, vmax=1,
                      interpolation="none", zorder=0)
    image.set_gid("density")
    ax.set_xlim(-_LIMIT, _LIMIT)    # imshow sets them to the extent: keep the maps' span if they ever differ
    ax.set_ylim(-_LIMIT, _LIMIT)
    bar = fig.colorbar(image, ax=ax, shrink=0.6, pad=0.02)   # before labels: it narrows ax
    bar.ax.set_gid("colorbar")
    bar.set_label("density (densest = 1)", fontsize=8)
    bar.ax.tick_params(labelsize=7)
    return fig, ax


def svg_density(title: str, nodes: pd.DataFrame, grid: Density | None = None) -> str:
    """VOSviewer's item density view of `nodes` (`density_of`, or `grid`) with the strongest nodes labelled
    as on the map."""
    from .svgplot import svg as _svg

    fig, ax = density_figure(nodes, density_of(nodes) if grid is None else grid)
    place_labels(fig, ax, drawn(nodes))
    ax.set_title(title, fontsize=9)
    return _svg(fig)
