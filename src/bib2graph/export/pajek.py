"""Pajek ``.net`` export: ``*Vertices`` with quoted labels, then ``*Edges`` (or ``*Arcs``) with weights."""

from __future__ import annotations

import os


from .common import clean
from .text import chunks, int_text, lines, node_codes, number_g10, write_parts


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
    """Write the network; vertices are numbered 1..n in node_id order, edge values are ``weight`` (``%.10g``),
    the edge lines built column-wise a chunk at a time."""
    ids = network.nodes["node_id"]
    source = node_codes(ids, network.edges["source"]) + 1
    target = node_codes(ids, network.edges["target"]) + 1
    weight = network.edges["weight"].to_numpy(dtype=float)
    head = [f"*Vertices {len(ids)}"] + [f'{k} "{label}"' for k, label in enumerate(pajek_labels(network), start=1)]
    head.append("*Arcs" if network.directed else "*Edges")

    def parts():
        yield "\r\n".join(head) + "\r\n"
        for part in chunks(len(weight)):
            yield lines([int_text(source[part]), int_text(target[part]), number_g10(weight[part])], " ", "\r\n")

    write_parts(path, parts())
