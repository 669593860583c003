"""`slices`: a network in each time slice as the map's time slider shows it, read-only from
results/slices/<kind>/ (with `time.enabled` and the kind in `time.networks`)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from .. import spec as spec_mod
from ..errors import DataError
from ..paths import SPEC_FILE
from .network_view import network_folder
from .result import Result
from .workspace import Workspace


def slices(ws: Workspace, kind: str) -> Result:
    """Each slice of `kind` (oldest first) with its members and their clusters, and the cluster events
    between consecutive slices."""
    network_folder(ws, kind)        # an unknown kind is UNKNOWN_NETWORK, as for `b2g network`
    sliced = spec_mod.load(ws.spec_path, SPEC_FILE)["time"]
    if not sliced["enabled"] or kind not in sliced["networks"]:
        raise DataError(f"the {kind} network is not sliced in time; set time.enabled: true and list {kind} in "
                        "time.networks, then `b2g run networks`", code="NOT_SLICED", details={"kind": kind})
    folder = ws.path(f"results/slices/{kind}")
    files = {name: folder / f"{name}.parquet" for name in ("nodes", "events")}
    for path in files.values():
        if not path.is_file():
            raise DataError(f"the {kind} slices are not built yet ({path} is missing); `b2g run networks` builds "
                            "them", code="ARTIFACT_MISSING", details={"kind": kind, "file": str(path)})
    nodes, events = _table(files["nodes"], ["slice", "node_id", "cluster"]), _table(files["events"], None)
    found = []
    for name in sorted(nodes["slice"].unique(), key=lambda s: int(s.split("-")[0])):
        here = nodes[nodes["slice"] == name]
        start, end = (int(y) for y in name.split("-"))
        found.append({"slice": name, "start": start, "end": end, "nodes": int(len(here)),
                      "clusters": int(here["cluster"].nunique()),
                      "members": [[str(n), int(c)] for n, c in zip(here["node_id"], here["cluster"])]})
    return Result(data={"workspace": ws.describe(), "kind": kind, "slices": found,
                        "events": [{"from_slice": e.from_slice, "to_slice": e.to_slice, "side": e.side,
                                    "cluster": int(e.cluster), "event": e.event, "with": e.with_}
                                   for e in events.rename(columns={"with": "with_"}).itertuples()]})


def _table(path: Path, columns: list[str] | None):
    """A slices table, or ARTIFACT_CORRUPT naming it (truncated, not Parquet, columns missing)."""
    import pyarrow as pa

    try:
        return pq.read_table(path, columns=columns).to_pandas()
    except (pa.ArrowException, OSError, KeyError) as exc:
        raise DataError(f"cannot read {path}: {exc}; `b2g run networks` rebuilds it", code="ARTIFACT_CORRUPT",
                        details={"files": [str(path)]}) from None
