"""`source.kind: snapshot` through the real `b2g run`: the demo's works as an OpenAlex snapshot give the
files source's seeds, chain, corpus and networks byte for byte; a new dated partition re-runs only its own
job, the gather and what follows; a damaged partition is an error naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bib2graph.sources.snapshot_layout import partitions
from bib2graph.spec import resolve_path
from tests.snapshot_builder import replicate, synergy_works, write_manifest, write_partition, write_snapshot

from .conftest import copy_workspace, keep_networks
from .helpers import b2g, ran_jobs

pytestmark = pytest.mark.integration
KINDS = ("citation", "coupling")
COMPARED = ["results/seed/seeds.parquet", "results/chain/candidates.parquet", "results/corpus/screening.parquet",
            *[f"results/corpus/{name}.parquet" for name in ("works", "authorships", "affiliations", "references",
                                                           "terms")],
            *[f"results/networks/{kind}/{name}.parquet" for kind in KINDS for name in ("nodes", "edges")]]


def _snapshot_workspace(built_demo: Path, target: Path, dates: int, parts: int) -> tuple[Path, list[dict]]:
    """A copy of the built demo whose source is a snapshot of the demo's own works (two networks only)."""
    root = keep_networks(copy_workspace(built_demo, target), *KINDS)
    path = root / "config/research.yaml"
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    works = synergy_works(*(resolve_path(root, name) for name in spec["source"]["files"]))
    write_snapshot(root / "snapshot", works, dates=dates, parts=parts)
    spec["source"] = {"kind": "snapshot", "snapshot": {"path": "snapshot"}}
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return root, works


@pytest.mark.long
def test_snapshot_equals_files_source_and_a_new_partition_reruns_only_its_jobs(built_demo, tmp_path):
    root, works = _snapshot_workspace(built_demo, tmp_path / "review", dates=2, parts=1)
    run = b2g("run", "networks", "--cores", "2", "--json", "--workspace", str(root))
    assert run.returncode == 0, run.stderr[-3000:]
    parts = {job for job in ran_jobs(run.stderr) if job.startswith("snapshot_part:")}
    assert len(parts) == 2 and "sources" in ran_jobs(run.stderr)
    for name in COMPARED:   # the demo was built from the same Work objects as a files source
        assert (root / name).read_bytes() == (built_demo / name).read_bytes(), name

    # A later dated partition: two works updated again (their newer record wins) and two new works.
    again = [dict(w, updated_date="2023-06-01T00:00:00", cited_by_count=10_000 + i) for i, w in enumerate(works[:2])]
    write_partition(root / "snapshot", "2023-06-01", 0, again + replicate(works, len(works) + 2)[len(works):])
    write_manifest(root / "snapshot")
    rerun = b2g("run", "corpus", "--cores", "2", "--json", "--workspace", str(root))
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    ran = ran_jobs(rerun.stderr)
    assert {job for job in ran if job.startswith("snapshot_part:")} == {"snapshot_part:2023-06-01.part_000"}
    assert {"sources", "seed", "chain", "corpus"} <= ran
    import pandas as pd

    universe = pd.read_parquet(root / "results/sources/works.parquet").set_index("work_id")
    assert len(universe) == len(works) + 2
    import json

    prisma = json.loads((root / "results/corpus/prisma.json").read_text(encoding="utf-8"))["sources"]
    assert [f["file"] for f in prisma["files"]] == sorted(partitions(root / "snapshot"))   # per partition
    assert prisma["records"] - prisma["duplicates_removed"] == len(universe)
    for work in again:
        assert universe.loc[work["id"].rsplit("/", 1)[1], "cited_by_count"] == work["cited_by_count"]
    status = b2g("status", "--json", "--workspace", str(root)).envelope["data"]   # the registry's jobs are Snakemake's
    jobs = {j["job"]: j["state"] for j in status["jobs"]}
    assert {job for job in jobs if job.startswith("snapshot_part:")} == {
        f"snapshot_part:{key}" for key in partitions(root / "snapshot")}
    assert {job for job, state in jobs.items() if state != "complete"} == {   # `run corpus` stopped there
        job for job in jobs if job.split(":")[0] in ("network", "clusters", "stability", "layout", "export", "report")}


@pytest.mark.long
def test_a_truncated_partition_is_an_error_naming_the_file(built_demo, tmp_path):
    root, _ = _snapshot_workspace(built_demo, tmp_path / "review", dates=1, parts=1)
    damaged = next((root / "snapshot").rglob("part_000.gz"))
    damaged.write_bytes(damaged.read_bytes()[: damaged.stat().st_size // 2])
    name = "snapshot/" + damaged.relative_to(root / "snapshot").as_posix()
    check = b2g("validate", "--json", "--workspace", str(root)).envelope   # validate reads every partition
    assert check["error"]["details"]["problems"][0]["path"] == name
    run = b2g("run", "networks", "--cores", "2", "--json", "--workspace", str(root))
    env = run.envelope
    assert env["ok"] is False and env["error"]["code"] == "FILE_CORRUPT"
    assert env["error"]["details"]["file"] == name
    assert "truncated" in env["error"]["message"]
