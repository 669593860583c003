"""`slices`: a network in each time slice as the map's time slider shows it, read-only from
results/slices/<kind>/ (with `time.enabled` and the kind in `time.networks`)."""

from __future__ import annotations

import pyarrow.parquet as pq

from .. import spec as spec_mod
from ..errors import DataError
from ..paths import SPEC_FILE
from ..tables import parquet_errors
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
    with parquet_errors(files["nodes"]):
        nodes = pq.read_table(files["nodes"], columns=["slice", "node_id", "cluster"]).to_pandas()
    with parquet_errors(files["events"]):
        events = pq.read_table(files["events"]).to_pandas()
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

