"""The demo through a real SLURM cluster, as a cluster user runs it: `b2g run --profile profiles/slurm`
with the profile `b2g init` writes, its account and partition filled in. Every job must go through
sbatch, and the networks must be byte for byte those of a local run.

Run by `make test-slurm`, which starts a single-node cluster on this machine (.ci/slurm-cluster.sh);
`make test` leaves this folder out (tests/conftest.py). The cluster has no accounting database, so jobs
are followed with squeue (`--slurm-status-command squeue`; slurm.conf keeps finished jobs for an hour).
Two network kinds instead of six: on a busy 2-core machine the full demo took 4 min through SLURM
(24 jobs of 5-17 s each, most of it Python starting twice per job), these two 2.3 min, and they still
run every rule (cocitation needs the cited-works job) and two jobs of one rule side by side.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ..integration.conftest import copy_workspace, keep_networks
from ..integration.helpers import Call, b2g, ran_jobs

KINDS = ("cocitation", "coauthorship")
ACCOUNT = "ci"   # any name passes: without an accounting database SLURM checks no account
TIMEOUT = 900    # seconds; SIGKILL, since a run whose status queries fail ignores SIGTERM
# The plugin checks the queue INIT s after a submission, then INIT+10, INIT+20 … s after the previous check
# while nothing finishes: with jobs of 8-16 s here, 3 s finds most of them at the second check (16 s).
INIT = "3"
SUBMITTED = re.compile(r"has been submitted with SLURM jobid (\d+) \(log: .*/slurm_logs/rule_(\w+)/(?:(\w+)/)?\d+\.log\)")


def slurm(*args: str) -> str:
    """A SLURM client command's output; a missing cluster fails with how to start one."""
    if shutil.which("sinfo") is None:
        pytest.fail("no SLURM client here: run `make test-slurm` (it starts .ci/slurm-cluster.sh)")
    return subprocess.run(args, capture_output=True, text=True, check=True, timeout=60).stdout


def fields(line: str) -> dict[str, str]:
    """`scontrol show -o` output as a dict (values without spaces are enough here)."""
    return dict(item.split("=", 1) for item in line.split() if "=" in item)


def fill_profile(root: Path, partition: str, node_memory_mb: int) -> None:
    """Account and partition, as the profile asks a user to fill in; memory capped to what the node has
    (the profile asks 16 GB for networks, more than some CI machines hold)."""
    path = root / "profiles/slurm/config.yaml"
    profile = yaml.safe_load(path.read_text(encoding="utf-8"))
    profile["default-resources"].update(slurm_account=ACCOUNT, slurm_partition=partition)
    for resources in [profile["default-resources"], *profile.get("set-resources", {}).values()]:
        if "mem_mb" in resources:
            resources["mem_mb"] = min(resources["mem_mb"], node_memory_mb)
    path.write_text(yaml.safe_dump(profile, sort_keys=False), encoding="utf-8")


def b2g_through_slurm(root: Path) -> Call:
    """`b2g run --profile profiles/slurm` under `timeout -s KILL` (which kills Snakemake too: same
    process group); jobs it left in the queue are cancelled."""
    cmd = ["timeout", "-s", "KILL", str(TIMEOUT), sys.executable, "-m", "bib2graph", "run", "--json",
           "--workspace", str(root), "--profile", "profiles/slurm", "--slurm-status-command", "squeue",
           "--slurm-init-seconds-before-status-checks", INIT]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, cwd=root)
    finally:
        left = [line.split()[0] for line in slurm("squeue", "-h", "-o", "%i %Z").splitlines()
                if line.split()[1:] == [str(root)]]
        if left:
            subprocess.run(["scancel", *left], check=False)
    return Call(proc.returncode, proc.stdout, proc.stderr)


def network_files(root: Path) -> dict[str, bytes]:
    """Every network artifact but the manifests (they record times and hosts)."""
    base = root / "results/networks"
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*"))
            if p.is_file() and p.name != "manifest.json"}


@pytest.fixture(scope="module")
def cluster() -> dict[str, str | int]:
    partition = slurm("sinfo", "-h", "-o", "%P").split()[0].rstrip("*")
    node = fields(slurm("scontrol", "show", "node", "-o").splitlines()[0])
    assert node["State"].split("+")[0] in {"IDLE", "MIXED", "ALLOCATED"}, node["State"]
    return {"partition": partition, "memory_mb": int(node["RealMemory"])}


def test_the_demo_through_slurm_equals_a_local_run(cluster, tmp_path):
    init = b2g("init", str(tmp_path / "review"), "--json")
    assert init.returncode == 0, init.stderr
    review = keep_networks(tmp_path / "review", *KINDS)
    fill_profile(review, cluster["partition"], cluster["memory_mb"])
    local, through_slurm = copy_workspace(review, tmp_path / "local"), copy_workspace(review, tmp_path / "slurm")

    ran = b2g("run", "--cores", "2", "--json", "--workspace", str(local), timeout=TIMEOUT)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.envelope["ok"] is True
    run = b2g_through_slurm(through_slurm)
    assert run.returncode == 0, run.stderr[-5000:]
    assert run.envelope["ok"] is True

    # Every job the local run did went through sbatch, once, and SLURM ran it to the end.
    submitted = {m[1]: f"{m[2]}:{m[3]}" if m[3] else m[2] for m in SUBMITTED.finditer(run.stderr)}
    assert sorted(submitted.values()) == sorted(ran_jobs(ran.stderr)) == sorted(ran_jobs(run.stderr))
    assert {f"network:{kind}" for kind in KINDS} <= set(submitted.values())
    for job_id, job in submitted.items():
        info = fields(slurm("scontrol", "show", "job", "-o", job_id))
        assert (info["JobState"], info["ExitCode"]) == ("COMPLETED", "0:0"), (job, info)
        assert (info["WorkDir"], info["Partition"], info["Account"]) == (
            str(through_slurm), cluster["partition"], ACCOUNT), (job, info)

    # The same networks, byte for byte.
    expected, got = network_files(local), network_files(through_slurm)
    for kind in KINDS:
        assert {f"{kind}/nodes.parquet", f"{kind}/edges.parquet", f"{kind}/metrics.json"} <= set(expected)
    assert sorted(got) == sorted(expected)
    assert [name for name in expected if got[name] != expected[name]] == []
