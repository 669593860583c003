"""The resources of `b2g mcp`: the artifacts an agent reads whole, by URI.

    b2g://prisma                    the PRISMA 2020 counts (as `b2g prisma`'s data), JSON
    b2g://report                    the HTML report, results/report/index.html
    b2g://networks/{kind}/summary   a network's metrics.json, with its stability.json's fields beside
    b2g://networks/{kind}/clusters  its clusters (as `b2g network`'s `clusters`), JSON

Each is read through the same service functions as the verbs; a missing artifact is the verb's typed
error, carried in the MCP error's `data` as the envelope's `error`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..errors import DataError
from ..service.envelope import dumps
from ..service.workspace import Workspace

JSON, HTML = "application/json", "text/html"
_NETWORK = re.compile(r"b2g://networks/([a-z_]+)/(summary|clusters)")


@dataclass(frozen=True)
class Entry:
    uri: str
    name: str
    description: str
    mime_type: str


def _prisma(ws: Workspace) -> str:
    from ..service.prisma import read_prisma

    return dumps(read_prisma(ws).data)


def _report(ws: Workspace) -> str:
    path = ws.path("results/report/index.html")
    if not path.is_file():
        raise DataError(f"no report yet ({path} is missing); `b2g run` writes it", code="ARTIFACT_MISSING",
                        details={"file": str(path)})
    return path.read_text(encoding="utf-8")


def _network(ws: Workspace, kind: str, part: str) -> str:
    from ..service.network_view import cluster_list, network_folder, read_metrics

    metrics = read_metrics(network_folder(ws, kind))
    return dumps(metrics if part == "summary" else {"kind": kind, "clusters": cluster_list(metrics)})


def listing(ws: Workspace) -> list[Entry]:
    """The resources of this workspace: PRISMA, the report, and two per network of its spec."""
    from ..service.network_view import spec_kinds

    entries = [Entry("b2g://prisma", "PRISMA counts", "The PRISMA 2020 flow counts of the last corpus build.", JSON),
               Entry("b2g://report", "Report", "The HTML report of the review.", HTML)]
    for kind in spec_kinds(ws):
        entries += [Entry(f"b2g://networks/{kind}/summary", f"{kind} summary",
                          f"metrics.json of the {kind} network: sizes, parameters, what was sampled.", JSON),
                    Entry(f"b2g://networks/{kind}/clusters", f"{kind} clusters",
                          f"The clusters of the {kind} network, largest first.", JSON)]
    return entries


TEMPLATES = [Entry("b2g://networks/{kind}/summary", "network summary", "metrics.json of a network.", JSON),
             Entry("b2g://networks/{kind}/clusters", "network clusters", "The clusters of a network.", JSON)]


def reader(uri: str) -> tuple[Callable[[Workspace], str], str] | None:
    """(read function, MIME type) for a resource URI, or None when no resource has it."""
    if uri == "b2g://prisma":
        return _prisma, JSON
    if uri == "b2g://report":
        return _report, HTML
    match = _NETWORK.fullmatch(uri)
    if match:
        kind, part = match.groups()
        return (lambda ws: _network(ws, kind, part)), JSON
    return None

