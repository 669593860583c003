"""Figures and tables as the report embeds them: matplotlib SVG that is byte-stable (salted, undated) and
keeps its text as text (`svg.fonttype` none), so a figure can be read back; HTML tables escaped."""

from __future__ import annotations

import html
import io
from typing import Any


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "bib2graph"
    matplotlib.rcParams["svg.fonttype"] = "none"
    return plt


def svg(fig) -> str:
    """The figure as an inline <svg> element (no XML prolog), and the figure closed."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    pyplot().close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


class Html(str):
    """A table cell that is HTML already (a swatch, a list), so `table` does not escape it."""


def _cell(value: Any) -> str:
    return value if isinstance(value, Html) else html.escape(str(value))


def table(headers: list[str], rows: list[list[Any]], css_class: str | None = None) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in row) + "</tr>" for row in rows)
    attr = f' class="{html.escape(css_class)}"' if css_class else ""
    return f"<table{attr}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
