"""A built network: typed node, edge and evidence tables plus its metrics, as written and read back.

Light on purpose (no igraph, no scipy): exports and the report read networks without building any.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..atomic import write_json
from ..errors import DataError
from ..tables import empty, read_table, write_table
from .schema import EDGES, EVIDENCE, NODES


@dataclass
class Network:
    """A built network: typed node, edge and evidence tables plus a JSON-able metrics report."""

    kind: str
    directed: bool
    nodes: pd.DataFrame
    edges: pd.DataFrame
    evidence: pd.DataFrame | None
    metrics: dict

    def write(self, folder: str | os.PathLike[str], graph: str | os.PathLike[str] | None = None,
              conformed: bool = False) -> None:
        """nodes.parquet, edges.parquet, evidence.parquet and metrics.json in `folder`; with `graph`,
        nodes and metrics go there instead (the network job's, before the clusters job names them).
        `conformed`: the tables are as `build` conformed them, so they are not checked and sorted again
        (at 5.7M edges each pass cost 0.3–0.7 s)."""
        folder = Path(folder)
        own = Path(graph) if graph is not None else folder
        write_table(self.nodes, NODES, own / "nodes.parquet", conformed)
        write_table(self.edges, EDGES, folder / "edges.parquet", conformed)
        evidence = self.evidence if self.evidence is not None else empty(EVIDENCE[self.kind])
        write_table(evidence, EVIDENCE[self.kind], folder / "evidence.parquet", conformed)
        write_json(own / "metrics.json", self.metrics)

    @classmethod
    def read(cls, folder: str | os.PathLike[str], evidence: bool = True) -> "Network":
        """The network written by `write` (its kind and direction come from metrics.json); `evidence`
        False leaves the (possibly large) evidence table unread, as exports need none."""
        folder = Path(folder)
        try:
            metrics = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
            kind = metrics["kind"]
        except FileNotFoundError:
            raise DataError(f"artifact {folder / 'metrics.json'} does not exist; run `b2g run` to build it",
                            code="ARTIFACT_MISSING") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise DataError(f"artifact {folder / 'metrics.json'} is damaged ({exc}); `b2g run` rebuilds it",
                            code="ARTIFACT_CORRUPT") from None
        table = read_table(folder / "evidence.parquet", EVIDENCE[kind]) if evidence and kind in EVIDENCE else None
        return cls(kind=kind, directed=bool(metrics["directed"]),
                   nodes=read_table(folder / "nodes.parquet", NODES),
                   edges=read_table(folder / "edges.parquet", EDGES), evidence=table, metrics=metrics)
