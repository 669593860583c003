"""The review's report: one self-contained HTML page with how the corpus was assembled, what each
network holds and looks like (its map by cluster with a legend, by year and by density, and a table of its
clusters), and how the results were made.
Figures are inline SVG made with matplotlib, salted and undated so the bytes are stable; text stays
text (`svg.fonttype` none), so a figure can be read back.

The run's date: no clock goes into an artifact, so the report states one only when the environment
sets SOURCE_DATE_EPOCH (the reproducible-builds convention; set it to date a run on purpose).
Otherwise it names the dates the data holds (OpenAlex's last update of any work) and where the time
of each job is kept (`.snakemake/b2g/stat/`, outside the artifacts).
"""

from __future__ import annotations

import html
import os
import platform
from datetime import datetime, timezone
from typing import Any

import pandas as pd

from .atomic import write_text
from .palette import entry_colour
from .svgplot import Html
from .svgplot import pyplot as _pyplot
from .svgplot import svg as _svg
from .svgplot import table as _table
from .screening_figures import section as _screening
from .trend_figures import section as _change_over_time

#: the packages whose versions the report names (the ones that compute or draw something)
PACKAGES = ("bib2graph", "snakemake", "igraph", "leidenalg", "networkx", "numpy", "scipy", "pandas", "pyarrow",
            "matplotlib")
MAX_CLUSTER_ROWS = 20   # the cluster table's rows; a line says how many more metrics.json holds


def _people_line(people: dict[str, Any] | None) -> str:
    """The PRISMA box's line on people's screening: how many were screened and where the rule said stop."""
    if not people:
        return ""
    fired = people.get("rule_fired_after")
    stop = f"; stopping rule said stop after {fired}" if fired is not None else ""
    return f"\nby people: {people['screened']} of {people['to_screen']}{stop}"


def svg_prisma(counts: dict[str, Any]) -> str:
    """A PRISMA 2020-style flow: identification, duplicates, screening exclusions, inclusion."""
    plt = _pyplot()
    ident = counts["identified"]
    left = [f"Identified: {ident['total']}\nseeds: {ident['seeds']}" +
            "".join(f"\nchaining round {r['round']}: {r['admitted']}" for r in ident["rounds"]),
            f"Screened: {counts['screened']}" + _people_line(counts.get("people")), f"Included: {counts['included']}"]
    filters = counts["excluded_by_filter"]
    right = [f"Duplicates removed: {counts['duplicates_removed']}",
             "Excluded by filters: " + str(sum(filters.values())) +
             "".join(f"\n{k.split(':', 1)[1]}: {v}" for k, v in sorted(filters.items())) +
             f"\nExcluded by people: {counts['excluded_by_people']}" +
             (f"\n(reinstated by people: {counts['reinstated_by_people']})" if counts["reinstated_by_people"] else "")]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.set_axis_off()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    box = {"boxstyle": "round,pad=0.4", "facecolor": "#eef3fa", "edgecolor": "#3b6ea5"}
    ys = [8.6, 5.0, 1.4]
    for y, text in zip(ys, left):
        ax.text(2.6, y, text, ha="center", va="center", fontsize=9, bbox=box)
    for y, text in zip((6.8, 3.2), right):
        ax.text(7.6, y, text, ha="center", va="center", fontsize=9, bbox=box)
    for y0, y1 in zip(ys, ys[1:]):
        ax.annotate("", xy=(2.6, y1 + 0.8), xytext=(2.6, y0 - 1.0), arrowprops={"arrowstyle": "->"})
    for y in (6.8, 3.2):
        ax.annotate("", xy=(5.6, y), xytext=(2.6, y), arrowprops={"arrowstyle": "->"})
    return _svg(fig)


def _svg_years(works: pd.DataFrame) -> str:
    plt = _pyplot()
    years = works["year"].dropna().astype(int).value_counts().sort_index()
    fig, ax = plt.subplots(figsize=(7, 2.6))
    ax.bar(years.index, years.values, color="#3b6ea5")
    ax.set_xlabel("publication year")
    ax.set_ylabel("works")
    ax.set_title("Included works by year")
    fig.tight_layout()
    return _svg(fig)


def _fmt(value: Any) -> str:
    """Four significant digits, whole numbers from 10,000 on (no 3.453e+04 for a weight); blank if missing."""
    if isinstance(value, float):
        return "" if value != value else f"{value:.0f}" if abs(value) >= 1e4 else f"{value:.4g}"
    return "" if value is None else str(value)


def versions() -> list[list[str]]:
    """(package, version) of Python and of each package in PACKAGES that is installed."""
    from importlib.metadata import PackageNotFoundError, version

    rows = [["python", platform.python_version()]]
    for name in PACKAGES:
        try:
            rows.append([name, version(name)])
        except PackageNotFoundError:
            continue
    return rows


def run_date() -> str:
    """The run's date from SOURCE_DATE_EPOCH, or what to read instead (see the module's docstring)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdecimal():
        return datetime.fromtimestamp(int(epoch), tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return ("not written into the report (no artifact holds a clock): each job's time is in "
            ".snakemake/b2g/stat/<job>.json and results/logs/; set SOURCE_DATE_EPOCH to date a run here")


def data_dates(works: pd.DataFrame) -> list[list[str]]:
    """The dates the corpus holds: OpenAlex's last update of its works and their publication dates."""
    rows = []
    for column, what in (("updated_date", "OpenAlex last updated a corpus work"),
                         ("publication_date", "publication dates of the corpus")):
        values = works[column].dropna().astype(str).str[:10] if column in works else pd.Series(dtype=str)
        if len(values):
            rows.append([what, f"{values.min()} to {values.max()}"])
    return rows


def _provenance(spec: dict[str, Any], works: pd.DataFrame) -> list[str]:
    import yaml

    sections = {k: spec[k] for k in sorted(spec) if k != "name"}
    parts = ["<h2 id=\"how-made\">How these results were made</h2>",
             "<details><summary>The spec sections these results were made from (defaults filled in)</summary>"
             f"<pre>{html.escape(yaml.safe_dump(sections, sort_keys=True, allow_unicode=True))}</pre></details>",
             _table(["date", "value"], data_dates(works) + [["run", run_date()]]),
             _table(["package", "version"], versions())]
    return parts


def _export_links(kind: str, formats: list[str]) -> str:
    from .registry import export_names

    links = [f'<a href="../export/{html.escape(kind)}/{html.escape(name)}">{html.escape(name)}</a>'
             for name in export_names(formats)]
    return f"<p>Export files: {', '.join(links)}</p>" if links else ""


def _swatch(colour: str) -> str:
    return f'<span class="swatch" style="background:{html.escape(colour)}"></span>'


def legend_html(m: dict[str, Any]) -> str:
    """The map's legend (`maps.legend`) as a list a reader can match to the colours and a test can read:
    each item's data-cluster and data-colour, its label in span.label and its size in span.size."""
    from .maps import legend

    own, other = legend(m.get("clusters") or [])
    items = [f'<li data-cluster="{html.escape(str(c["cluster"]))}" data-colour="{html.escape(c["colour"])}">'
             f'{_swatch(c["colour"])} {html.escape(str(c["cluster"]))}: <span class="label">'
             f'{html.escape(c["label"])}</span> (<span class="size">{_fmt(c["size"])}</span> nodes)</li>' for c in own]
    if other:
        items.append(f'<li data-cluster="other" data-colour="{other["colour"]}" data-clusters="{other["clusters"]}">'
                     f'{_swatch(other["colour"])} {other["clusters"]} other clusters (<span class="size">'
                     f'{other["size"]}</span> nodes), all in this grey</li>')
    lone = m.get("singleton_clusters")
    note = (f'<p class="legend-note">Not listed: {lone} nodes alone in their clusters.</p>' if lone else "")
    return f'<ul class="legend" data-kind="{html.escape(m["kind"])}">' + "".join(items) + "</ul>" + note


def _density(kind: str, frame: pd.DataFrame, note: str) -> str:
    """The density view of one network as an HTML figure, its caption naming the weight and bandwidth."""
    from .maps import DENSITY_WEIGHT, density_of, svg_density

    grid = density_of(frame)
    return (f'<figure id="density-{html.escape(kind)}">' + svg_density(f"{kind}: item density{note}", frame, grid)
            + f"<figcaption>Item density (VOSviewer's density view): a Gaussian kernel of bandwidth "
            f"{grid.bandwidth:.3g} over the map, each node weighted by its <code>{DENSITY_WEIGHT}</code> (s<sub>i"
            "</sub> in docs/networks.md); the densest place is 1. Labels as on the map.</figcaption></figure>")


def map_figures(m: dict[str, Any], frame: pd.DataFrame | None, edges: pd.DataFrame | None) -> list[str]:
    """The map by cluster with its legend, the year overlay and the density view of one network, as HTML
    figures."""
    if frame is None or not len(frame):
        return []
    from .maps import MAX_NODES, svg_map, svg_overlay

    kind = m["kind"]
    note = f" (the {MAX_NODES} strongest of {len(frame)} nodes)" if len(frame) > MAX_NODES else ""
    parts = [f'<figure id="map-{html.escape(kind)}">' + svg_map(f"{kind}: clusters{note}", frame, edges)
             + legend_html(m) + "<figcaption>Map coloured by cluster; the strongest nodes are labelled where a "
             "label fits.</figcaption></figure>"]
    overlay = svg_overlay(f"{kind}: mean publication year{note}", frame, edges)
    if overlay is not None:
        parts.append(f'<figure id="overlay-{html.escape(kind)}">' + overlay
                     + "<figcaption>Overlay: each node coloured by the mean publication year of its works."
                     "</figcaption></figure>")
    return parts + [_density(kind, frame, note)]


def _terms(terms: list | None) -> str:
    """A cluster's label terms with their scores, best first."""
    named = [(t.get("term", ""), _fmt(t.get("score"))) if isinstance(t, dict) else (str(t), "") for t in terms or []]
    return "; ".join(f"{term} ({score})" if score else term for term, score in named)


def _works(works: list | None) -> Html:
    """Leading works (or authors, …) of a cluster as a numbered list of their labels."""
    names = [html.escape(str(w.get("label") or w.get("node_id", ""))) for w in works or []]
    return Html("<ol>" + "".join(f"<li>{n}</li>" for n in names) + "</ol>" if names else "")


def _cluster_row(c: dict[str, Any], cited: bool) -> list[Any]:
    """One row of the cluster table; a value metrics.json lacks is blank."""
    colour = entry_colour(c)
    years = [f"{y:.1f}" if isinstance(y, (int, float)) else "" for y in (c.get("mean_year"), c.get("median_year"))]
    return ([c.get("cluster"), Html(f'<span class="colour">{_swatch(colour)} {html.escape(colour)}</span>'),
             _fmt(c.get("label")), _fmt(c.get("size")), *years, _fmt(c.get("internal_weight")),
             _fmt(c.get("external_weight")), _fmt(c.get("silhouette")), _terms(c.get("terms")),
             _works(c.get("central"))] + ([_works(c.get("cited"))] if cited else []))


def cluster_table_html(m: dict[str, Any]) -> list[str]:
    """What each cluster is (metrics.json's cluster table), the MAX_CLUSTER_ROWS largest and a line on the
    rest. The most-cited column is left out when no cluster has one (not a document network)."""
    clusters = m.get("clusters") or []
    if not clusters:
        return []
    cited = any(c.get("cited") for c in clusters)
    headers = ["cluster", "colour", "label", "size", "mean year", "median year", "internal weight",
               "external weight", "silhouette", "label terms (score)", "most central"] + (["most cited"] * cited)
    rows = [_cluster_row(c, cited) for c in clusters[:MAX_CLUSTER_ROWS]]
    parts = [f'<div class="clusters" id="clusters-{html.escape(m["kind"])}">' + _table(headers, rows, "clusters")]
    rest = clusters[MAX_CLUSTER_ROWS:]
    if rest:
        size = sum(int(c.get("size") or 0) for c in rest)
        parts.append(f'<p class="more">{len(rest)} more clusters ({size} nodes): <code>results/networks/'
                     f"{html.escape(m['kind'])}/metrics.json</code>.</p>")
    return ["".join(parts) + "</div>"]


def _percent(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.1f}%)" if whole else str(part)


def _sources(counts: dict[str, Any]) -> list[str]:
    """What the source files (or snapshot partitions) gave: records and duplicates per file, and how
    their cited references were matched (the `sources` job's manifest)."""
    files = [[f["file"], f["records"], f["duplicates"]] for f in counts["files"]]
    what = "partition" if "partitions" in counts else "file"
    parts = [f"<h3 id=\"sources\">Source {what}s</h3>", _table([what, "records", "duplicates removed"], files),
             f"<p>{counts['works']} works from {counts['records']} records.</p>"]
    parts += [f"<p class=\"warning\"><strong>{html.escape(f['file'])}: most records list exactly "
              f"{f['references_capped_at']} cited references and almost none more</strong>; the export looks cut "
              "there, so its works share fewer references than they cite (bibliographic coupling and co-citation "
              "undercount).</p>"
              for f in counts["files"] if f.get("references_capped_at")]
    refs = counts["references"]
    if "identities_by_method" not in refs:   # a snapshot: every reference is an OpenAlex ID already
        return parts
    total, methods = refs["total"], refs.get("identities_by_method", {})
    rows = [["cited references read", total], ["parsed", _percent(total - refs["unparsed"], total)],
            ["carrying a DOI", _percent(refs["with_doi"], total)], ["distinct cited works", refs["identities"]]]
    rows += [[f"identities {label}", _percent(methods.get(key, 0), refs["identities"])]
             for key, label in (("doi", "matched to a source work by DOI"), ("key", "matched to a source work by "
                                "author, year, source, volume, page"), ("merged", "folded into a fuller "
                                "citation of the same work"), ("unresolved", "outside the sources (own node)"))]
    return parts + [_table(["cited references", "count"], rows)]


def _reading_notes(m: dict[str, Any]) -> list[str]:
    """What a reader of the map must know: whether its clusters come back under other seeds, and which
    centralities were estimated or skipped (metrics.json says how)."""
    notes = []
    if m.get("reproducibility"):
        strong = m.get("clusters_reproducible") is False
        text = html.escape(m["reproducibility"])
        notes.append(f"<p class=\"stability\">{'<strong>' + text + '</strong>' if strong else text}</p>")
    runs = m.get("stability") or {}
    if runs.get("reason") and runs.get("runs", 0) < runs.get("requested_runs", 0):   # fewer than asked: why
        notes.append(f"<p class=\"stability-runs\">Stability from {runs['runs']} clustering runs: "
                     f"{html.escape(runs['reason'])}.</p>")
    for name in ("betweenness", "eigenvector"):
        info = m.get(name) or {}
        if info.get("method") in ("sampled", "skipped") and info.get("reason"):
            what = "estimated" if info["method"] == "sampled" else "not computed"
            notes.append(f"<p>{name.capitalize()} {what}: {html.escape(info['reason'])}.</p>")
    return notes


def render(spec: dict[str, Any], manifests: dict[str, dict], screening: pd.DataFrame,
           works: pd.DataFrame, metrics: list[dict[str, Any]], prisma: dict[str, Any],
           reading: dict[str, pd.DataFrame], maps: dict[str, tuple[pd.DataFrame, pd.DataFrame]] | None = None,
           trends: dict[str, pd.DataFrame] | None = None,
           sliced: dict[str, dict[str, pd.DataFrame]] | None = None,
           simulation: tuple[pd.DataFrame, dict[str, Any]] | None = None) -> str:
    """The report's HTML; `maps` gives each network's nodes with x and y, and its edges; `trends` and
    `sliced` the tables of results/trends/ and results/slices/<kind>/ (with `time.enabled`); `simulation`
    the curves and summary of results/screening/ (with `screening.simulation.labels`)."""
    maps = maps or {}
    seeds, chain = manifests["seeds"]["counts"], manifests["chain"]["counts"]
    corpus = manifests["corpus"]["counts"]
    parts = [f"<h1>{html.escape(spec['name'])}</h1>", "<h2>How the corpus was assembled</h2>"]
    flow = [["seeds resolved", seeds["seeds"]], ["seed entries not found", seeds["unresolved"]]]
    flow += [[f"round {r['round']}: candidates / admitted", f"{r['candidates']} / {r['admitted']}"]
             for r in chain["rounds"]]
    flow += [["pooled works", corpus["pool"]]]
    flow += [[f"excluded: {step}", n] for step, n in sorted(corpus["excluded"].items())]
    flow += [["accepted by people", corpus["accepted"]], ["rejected by people", corpus["rejected"]],
             ["included in the corpus", corpus["included"]]]
    parts.append(_table(["step", "works"], flow))
    if "sources" in manifests:
        parts += _sources(manifests["sources"]["counts"])
    parts.append("<h3>PRISMA flow</h3>" + svg_prisma(prisma))
    if len(works):
        parts.append(_svg_years(works))
    parts += _screening(prisma.get("people"), *(simulation or (None, None)))
    parts.append("<h2>Networks</h2>")
    rows = [[m["kind"], m["nodes"], m["edges"], _fmt(m.get("density")), m.get("components"),
             len(m.get("clusters", [])), _fmt(m.get("modularity")), _fmt(m.get("silhouette"))] for m in metrics]
    parts.append(_table(["network", "nodes", "edges", "density", "components", "clusters", "modularity",
                         "silhouette"], rows))
    for m in metrics:
        parts.append(f"<h3>{html.escape(m['kind'])}</h3><p>{html.escape(str(m.get('definition', '')))}</p>")
        parts += _reading_notes(m)
        parts += map_figures(m, *maps.get(m["kind"], (None, None)))
        parts.append(_export_links(m["kind"], spec.get("export", {}).get("formats", [])))
        parts += cluster_table_html(m)
        order = reading.get(m["kind"])
        if order is not None and len(order):
            top = order[(order["rank"] <= 3) & (order["cluster"] <= 10)]
            parts.append("<p>Reading order (the three most central corpus works of each cluster; all in "
                         f"<code>results/export/{html.escape(m['kind'])}/reading_order.csv</code>):</p>")
            parts.append(_table(["cluster", "rank", "work", "year"],
                                [[r.cluster, r.rank, r.label, _fmt(r.year)] for r in top.itertuples()]))
    parts += _change_over_time(trends, sliced or {}, manifests)
    parts += _provenance(spec, works)
    style = ("body{font-family:sans-serif;max-width:60rem;margin:2rem auto;color:#222}"
             "table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.2rem .5rem;"
             "text-align:left}th{background:#eef}figure{margin:1rem 0}svg{max-width:100%;height:auto}"
             "pre{background:#f6f6f6;padding:.5rem;overflow:auto}.swatch{display:inline-block;width:.8em;"
             "height:.8em;border:1px solid #888;vertical-align:middle}ul.legend{list-style:none;padding:0;"
             "columns:2;font-size:.85em}div.clusters{overflow-x:auto}table.clusters{font-size:.8em}"
             "table.clusters td{vertical-align:top}table.clusters ol{margin:0;padding-left:1.4em;min-width:14em}"
             ".colour{white-space:nowrap}")
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
            f"{html.escape(spec['name'])}</title><style>{style}</style></head><body>"
            + "\n".join(parts) + "</body></html>\n")


def write_report(path: str, spec: dict[str, Any], manifests: dict[str, dict], screening: pd.DataFrame,
                 works: pd.DataFrame, metrics: list[dict[str, Any]], prisma: dict[str, Any],
                 reading: dict[str, pd.DataFrame],
                 maps: dict[str, tuple[pd.DataFrame, pd.DataFrame]] | None = None,
                 trends: dict[str, pd.DataFrame] | None = None,
                 sliced: dict[str, dict[str, pd.DataFrame]] | None = None,
                 simulation: tuple[pd.DataFrame, dict[str, Any]] | None = None) -> None:
    write_text(path, render(spec, manifests, screening, works, metrics, prisma, reading, maps, trends, sliced,
                            simulation))
