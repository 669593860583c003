"""The colours of clusters on every map (GUI, report): one list, so a cluster has one colour everywhere.

Tableau 20, reordered so that neighbours in the list differ; clusters are numbered from 1 by size, so
the twenty largest get a colour each and the others share `OTHER_COLOUR`.
"""

from __future__ import annotations

CLUSTER_COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
    "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#9edae5", "#dbdb8d", "#c7c7c7",
)
OTHER_COLOUR = "#b9b9b9"


def cluster_colour(cluster) -> str:
    """The colour of canonical cluster `cluster` (1 = largest); clusters past the twentieth are grey."""
    try:
        number = int(cluster)
    except (TypeError, ValueError):
        return OTHER_COLOUR
    return CLUSTER_COLOURS[number - 1] if 1 <= number <= len(CLUSTER_COLOURS) else OTHER_COLOUR


def entry_colour(entry: dict) -> str:
    """A cluster table entry's colour: the one it records, else its number's (a metrics.json written
    before clusters had colours)."""
    return entry.get("colour") or cluster_colour(entry.get("cluster"))
