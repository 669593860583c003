"""Pajek ``.net`` export: ``*Vertices`` with quoted labels, then ``*Edges`` (or ``*Arcs``) with weights."""

from __future__ import annotations

import os

from ..atomic import write_text
from .common import clean


def pajek_labels(network) -> list[str]:
    """Vertex labels: the node label, or ``label [node_id]`` where several nodes share it (Pajek and
    networkx identify vertices by label). Double quotes become single quotes and backslashes slashes,
    because Pajek has no escape syntax."""
    labels = [clean(x).replace('"', "'").replace("\\", "/") or str(i)
              for x, i in zip(network.nodes["label"], network.nodes["node_id"])]
    seen: dict[str, int] = {}
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
    return [f"{label} [{node_id}]" if seen[label] > 1 else label
            for label, node_id in zip(labels, network.nodes["node_id"])]


def write_pajek(network, path: str | os.PathLike[str]) -> None:
    """Write the network; vertices are numbered 1..n in node_id order, edge values are ``weight``."""
    codes = {node_id: k for k, node_id in enumerate(network.nodes["node_id"], start=1)}
    lines = [f"*Vertices {len(codes)}"]
    lines += [f'{k} "{label}"' for k, label in enumerate(pajek_labels(network), start=1)]
    lines.append("*Arcs" if network.directed else "*Edges")
    lines += [f"{codes[s]} {codes[t]} {float(w):.10g}"
              for s, t, w in zip(network.edges["source"], network.edges["target"], network.edges["weight"])]
    write_text(path, "\r\n".join(lines) + "\r\n")
