"""Pajek ``.net`` export: ``*Vertices`` with quoted labels, then ``*Edges`` (or ``*Arcs``) with weights."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .common import clean_cells
from .text import arrow_strings, chunks, int_text, lines, node_codes, number_g10, write_parts


def pajek_labels(network) -> list[str]:
    """Vertex labels: the node label, or ``label [node_id]`` where several nodes share it (Pajek and
    networkx identify vertices by label). Double quotes become single quotes and backslashes slashes,
    because Pajek has no escape syntax; an empty label is the node ID."""
    ids = arrow_strings(network.nodes["node_id"])
    labels = pc.replace_substring(pc.replace_substring(clean_cells(network.nodes["label"]), '"', "'"), "\\", "/")
    labels = pc.if_else(pc.equal(labels, ""), ids, labels)
    codes = pc.dictionary_encode(labels)
    shared = (np.bincount(codes.indices.to_numpy(), minlength=len(codes.dictionary)) > 1)[codes.indices.to_numpy()]
    return pc.if_else(pa.array(shared, type=pa.bool_()), pc.binary_join_element_wise(labels, " [", ids, "]", ""),
                      labels).to_pylist()


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
