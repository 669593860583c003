"""An honest DAG: a file a job reads or writes that is edited, deleted or corrupted makes `b2g status`
name exactly the jobs it affects, and `b2g run` rebuild exactly them; a missing input is an error.

A sample of files (one per rule, and the curation file) in every way here; `make fuzz` runs every
file of the DAG (fuzz/test_dag_matrix.py).
"""

from __future__ import annotations

import pytest

from .conftest import copy_workspace
from .dag_cases import MUTATIONS, affected, call, is_external, mutate, stale_jobs
from .helpers import b2g, ran_jobs

pytestmark = pytest.mark.integration
SAMPLE = ["results/seed/manifest.json", "results/chain/pool/terms.parquet", "results/chain/cited/works.parquet",
          "results/corpus/prisma.json", "results/networks/coupling/nodes.parquet",
          "results/layouts/keywords/layout.parquet", "results/export/citation/edges.csv",
          "results/report/index.html", "config/curation.tsv"]


@pytest.mark.long
@pytest.mark.parametrize("how", MUTATIONS)
@pytest.mark.parametrize("relative", SAMPLE)
def test_status_names_exactly_the_affected_jobs(built_demo, tmp_path, relative, how):
    root = copy_workspace(built_demo, tmp_path / "review")
    mutate(root, relative, how)
    found = stale_jobs(root)
    if how == "delete" and is_external(root, relative):
        assert found["error"]["code"] == "FILE_MISSING" and relative in found["error"]["message"]
        return
    assert found == affected(root, relative)


@pytest.mark.long
@pytest.mark.parametrize("relative,how", [("results/networks/coupling/edges.parquet", "corrupt"),
                                          ("results/networks/keywords/manifest.json", "delete"),
                                          ("results/export/citation/nodes.csv", "edit")])
def test_run_rebuilds_exactly_them_and_then_nothing(built_demo, tmp_path, relative, how):
    root = copy_workspace(built_demo, tmp_path / "review")
    original = (root / relative).read_bytes()
    mutate(root, relative, how)
    expected = affected(root, relative)
    run = b2g("run", "--cores", "2", "--json", "--workspace", str(root))
    assert run.returncode == 0, run.stderr[-3000:]
    assert ran_jobs(run.stderr) == expected
    assert (root / relative).read_bytes() == original   # rebuilt as it was: the same inputs, the same bytes
    assert call(["status"], root)["data"]["up_to_date"] is True


def test_status_reads_past_a_truncated_table(built_demo, tmp_path):
    root = copy_workspace(built_demo, tmp_path / "review")
    table = root / "results/corpus/works.parquet"
    table.write_bytes(table.read_bytes()[:100])   # no footer left: not Parquet at all
    env = call(["status"], root)
    assert env["ok"] is True and env["data"]["counts"]["corpus"] is None
    assert set(env["data"]["pending_jobs"]) == affected(root, "results/corpus/works.parquet")
