"""The report's map pictures on small made-up networks: stable bytes, labels apart, the drawn subset, and a
density view whose picture is the density grid."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from bib2graph import maps, report
from bib2graph.density import item_density


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


def _density_image(svg: str) -> np.ndarray:
    """The RGBA pixels of the density view's image, row 0 first as stored (the grid's bottom row)."""
    import base64
    import io

    from PIL import Image

    tags = re.findall(r'<image [^>]*id="density"[^>]*>', svg)
    assert len(tags) == 1
    data = re.search(r'xlink:href="data:image/png;base64,\s*([^"]+)"', tags[0]).group(1)
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data))))


def test_the_density_view_is_the_weighted_item_density_and_byte_stable():
    from matplotlib import colormaps

    nodes, _ = crowded()
    nodes["x"] -= 0.6                                     # off centre: a flipped or mirrored grid would show
    first = maps.svg_density("density", nodes)
    assert first == maps.svg_density("density", nodes)
    grid = item_density(nodes["x"], nodes["y"], nodes["occurrences"])
    image = _density_image(first)
    assert image.shape == (*grid.values.shape, 4)
    assert np.array_equal(image, colormaps["viridis"](grid.values, bytes=True))
    flat = item_density(nodes["x"], nodes["y"], np.ones(len(nodes)))   # the weights count
    assert not np.array_equal(image, colormaps["viridis"](flat.values, bytes=True))
    assert re.search(r'<g id="label-0">', first) and 'id="colorbar"' in first


def test_the_density_image_lies_on_the_maps_axes():
    """The grid's cells cover the map's square, so a peak is drawn where its nodes are."""
    nodes, _ = crowded()
    grid = maps.density_of(nodes)
    fig, ax = maps.density_figure(nodes, grid)
    (image,) = ax.get_images()
    assert tuple(image.get_extent()) == (*grid.extent, *grid.extent) == (-1.08, 1.08, -1.08, 1.08)
    assert ax.get_xlim() == ax.get_ylim() == (-1.08, 1.08) and image.origin == "lower"
    assert np.array_equal(image.get_array(), grid.values)
    from bib2graph.svgplot import pyplot

    pyplot().close(fig)


@pytest.mark.parametrize("epoch,expected", [("1700000000", "2023-11-14 22:13 UTC"), ("", "SOURCE_DATE_EPOCH")])
def test_the_run_date_comes_from_source_date_epoch_only(monkeypatch, epoch, expected):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    assert expected in report.run_date()
