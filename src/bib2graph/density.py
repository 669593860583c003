"""VOSviewer's item density view: how much weight lies near each point of a map.

Definition (van Eck & Waltman 2010, "Software survey: VOSviewer", section 4.2): for a map with items i
at positions x_i and weights w_i, the density at a point p is

    D(p) = Σ_i w_i · K(|p − x_i| / (d̄ · h)),      K(t) = exp(−t²),

where d̄ is the mean distance between two items and h > 0 the kernel width (`width`). VOSviewer shows
its kernel width as an option; our default, 0.125, keeps the clusters of a bib2graph layout (scaled
to [−1, 1]², clusters placed apart) as separate peaks. The density is computed on a `size` × `size`
grid over the maps' square `EXTENT`: each item's weight goes to the cell holding it, and the grid is
convolved with K (a Gaussian of standard deviation d̄·h/√2, which K is), so the cost is that of the
grid, not of items × cells; an item is off by at most half a cell. Values are scaled to a maximum of 1
and rounded, so equal layouts give equal grids.

d̄ is exact up to `EXACT_PAIRS_BELOW` items; above, it is the mean over the pairs of a seeded sample of
that many items (its error is far below a cell).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SIZE = 128
WIDTH = 0.125          # h: the kernel's reach as a fraction of the mean distance between items
EXACT_PAIRS_BELOW = 2000
EXTENT = (-1.08, 1.08)  # the maps' axes (maps._LIMIT): a layout lies within [−1, 1]
DECIMALS = 4


@dataclass(frozen=True)
class Density:
    """`values[r][c]`: the density of the cell in row r (y, bottom to top) and column c (x, left to
    right), scaled to max 1; `extent` the square's low and high coordinate on both axes; `bandwidth`
    d̄ · h in map units."""

    values: np.ndarray
    extent: tuple[float, float]
    bandwidth: float

    def describe(self) -> dict:
        return {"size": int(self.values.shape[0]), "extent": list(self.extent), "bandwidth": self.bandwidth,
                "values": self.values.tolist()}


def mean_distance(x: np.ndarray, y: np.ndarray, seed: int = 0) -> float:
    """d̄: the mean Euclidean distance over pairs of distinct items (a seeded sample above
    EXACT_PAIRS_BELOW items); 0 with fewer than two items."""
    from scipy.spatial.distance import pdist

    points = np.column_stack([x, y]).astype(float)
    if len(points) > EXACT_PAIRS_BELOW:
        pick = np.random.default_rng(seed).choice(len(points), EXACT_PAIRS_BELOW, replace=False)
        points = points[np.sort(pick)]
    return float(pdist(points).mean()) if len(points) >= 2 else 0.0


def item_density(x, y, weight, *, size: int = SIZE, width: float = WIDTH,
                 extent: tuple[float, float] = EXTENT) -> Density:
    """The density grid of items at (x, y) weighted by `weight` (missing or negative weights count 0)."""
    from scipy.ndimage import gaussian_filter

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    w = np.nan_to_num(np.asarray(weight, dtype=float), nan=0.0)
    w = np.where(w > 0, w, 0.0)
    low, high = extent
    cell = (high - low) / size
    grid = np.zeros((size, size))
    if len(x):
        col = np.clip(((x - low) / cell).astype(int), 0, size - 1)
        row = np.clip(((y - low) / cell).astype(int), 0, size - 1)
        np.add.at(grid, (row, col), w)
    distance = mean_distance(x, y)
    bandwidth = distance * width if distance > 0 else cell
    sigma = bandwidth / np.sqrt(2) / cell          # exp(−t²/b²) is a Gaussian of sd b/√2
    grid = gaussian_filter(grid, sigma=sigma, mode="constant", truncate=4.0)
    top = grid.max()
    values = np.round(grid / top, DECIMALS) if top > 0 else grid
    return Density(values=values + 0.0, extent=(float(low), float(high)), bandwidth=round(float(bandwidth), 10))
