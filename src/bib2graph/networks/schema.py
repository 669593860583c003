"""The pandera schemas of a network's tables: nodes, edges and (for coupling and co-citation) evidence.

They follow the conventions of `bib2graph.tables`: strict, ordered, coerced, unique on the key, and the
key recorded in the metadata so that `tables.conform`/`write_table` sort rows by it.
"""

from __future__ import annotations

import pandera.pandas as pa

from ..tables import OPTIONAL_TEXT as _ostr
from ..tables import TEXT as _str
from ..tables import table_schema as _schema

_count = pa.Column("Int64", pa.Check.ge(0), nullable=False)
_float = pa.Column(float, nullable=False)


NODES = _schema("nodes", {
    "node_id": _str,
    "label": _str,
    "occurrences": _count,
    "year": pa.Column("Int64", nullable=True),
    "mean_year": pa.Column(float, nullable=True),
    "doi": _ostr,
    "in_corpus": pa.Column(bool),
    "degree": _count,
    "strength": pa.Column(float, pa.Check.ge(0)),
    "link_strength": pa.Column(float, pa.Check.ge(0)),
    "pagerank": pa.Column(float, pa.Check.ge(0)),
    "betweenness": pa.Column(float, pa.Check.ge(0), nullable=True),   # null: skipped (metrics.json says why)
    "eigenvector": pa.Column(float, pa.Check.ge(0), nullable=True),
    "cluster": pa.Column("Int64", pa.Check.ge(1)),
    "cluster_label": _ostr,           # null in the network job's table; the clusters job names clusters of 2+
    "silhouette": pa.Column(float, pa.Check.in_range(-1, 1), nullable=True),   # null: undefined (< 2 clusters)
}, ["node_id"])

# Map coordinates of a network's nodes (results/layouts/<kind>/layout.parquet); the layout job writes it
# with pyarrow alone (LAYOUT_COLUMNS), `b2g validate` reads it back with this schema.
LAYOUT = _schema("layout", {
    "node_id": _str,
    "x": _float,
    "y": _float,
}, ["node_id"])

EDGES = _schema("edges", {
    "source": _str,
    "target": _str,
    "count": pa.Column(float, pa.Check.gt(0)),
    "weight": pa.Column(float, pa.Check.gt(0)),
}, ["source", "target"])

COUPLING_EVIDENCE = _schema("coupling_evidence", {
    "source": _str,
    "target": _str,
    "reference_id": _str,
}, ["source", "target", "reference_id"])

COCITATION_EVIDENCE = _schema("cocitation_evidence", {
    "source": _str,
    "target": _str,
    "citing_id": _str,
}, ["source", "target", "citing_id"])

WORK_EVIDENCE = _schema("work_evidence", {
    "source": _str,
    "target": _str,
    "work_id": _str,
}, ["source", "target", "work_id"])

# Which documents make each edge: shared references (coupling), citing works (co-citation; for direct
# citation the citing work itself), shared works (co-authorship, institutions, keywords).
EVIDENCE = {"coupling": COUPLING_EVIDENCE, "cocitation": COCITATION_EVIDENCE, "citation": COCITATION_EVIDENCE,
            "coauthorship": WORK_EVIDENCE, "institutions": WORK_EVIDENCE, "keywords": WORK_EVIDENCE}
