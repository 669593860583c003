"""The report's map pictures on small made-up networks: stable bytes, labels apart, the drawn subset."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from bib2graph import maps, report


def crowded(n: int = 60, seed: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Nodes packed in a small area with long labels, so that most labels would collide."""
    rng = np.random.default_rng(seed)
    nodes = pd.DataFrame({"node_id": [f"A{k:03d}" for k in range(n)],
                          "label": [f"A rather long label number {k}" for k in range(n)],
                          "x": rng.uniform(-0.2, 0.2, n), "y": rng.uniform(-0.2, 0.2, n),
                          "strength": rng.uniform(0, 10, n), "occurrences": rng.integers(1, 9, n),
                          "cluster": rng.integers(1, 25, n),
                          "mean_year": np.where(rng.random(n) < 0.1, np.nan, rng.uniform(1990, 2020, n))})
    edges = pd.DataFrame({"source": nodes["node_id"][:-1].to_numpy(), "target": nodes["node_id"][1:].to_numpy(),
                          "count": 1.0, "weight": rng.uniform(0.1, 1, n - 1)})
    return nodes, edges


def _boxes(svg: str) -> list[tuple[float, ...]]:
    found = []
    for group in re.findall(r'<g id="label-\d+">\s*<g id="patch_\d+">\s*<path d="([^"]*)"', svg):
        numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", group)]
        found.append((min(numbers[0::2]), min(numbers[1::2]), max(numbers[0::2]), max(numbers[1::2])))
    return found


def test_maps_are_byte_stable_and_their_labels_never_overlap():
    nodes, edges = crowded()
    first = maps.svg_map("crowded", nodes, edges)
    assert first == maps.svg_map("crowded", nodes, edges)
    boxes = _boxes(first)
    assert 1 <= len(boxes) < maps.MAX_LABELS           # some fit, not all: the greedy placement chose
    for a in range(len(boxes)):
        for b in range(a):
            A, B = boxes[a], boxes[b]
            assert A[2] <= B[0] or B[2] <= A[0] or A[3] <= B[1] or B[3] <= A[1]
    assert len(re.findall(r"<use ", first)) == len(nodes)
    assert maps.OTHER_COLOUR in first                           # clusters beyond the 20th are grey


def test_the_overlay_greys_unknown_years_and_has_a_year_bar():
    nodes, edges = crowded()
    svg = maps.svg_overlay("years", nodes, edges)
    assert svg.count(maps.NO_YEAR_COLOUR) == int(nodes["mean_year"].isna().sum())
    low, high = int(np.floor(nodes["mean_year"].min())), int(np.ceil(nodes["mean_year"].max()))
    assert 'id="colorbar"' in svg and f">{low}<" in svg and f">{high}<" in svg
    assert maps.svg_overlay("none", nodes.assign(mean_year=np.nan), edges) is None


def test_large_networks_draw_their_strongest_nodes():
    nodes = pd.DataFrame({"node_id": [f"N{k:05d}" for k in range(maps.MAX_NODES + 10)]})
    nodes["strength"] = np.arange(len(nodes), dtype=float)
    shown = maps.drawn(nodes)
    assert len(shown) == maps.MAX_NODES and shown["strength"].min() == 10
    assert shown["node_id"].is_monotonic_increasing


@pytest.mark.parametrize("epoch,expected", [("1700000000", "2023-11-14 22:13 UTC"), ("", "SOURCE_DATE_EPOCH")])
def test_the_run_date_comes_from_source_date_epoch_only(monkeypatch, epoch, expected):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    assert expected in report.run_date()
