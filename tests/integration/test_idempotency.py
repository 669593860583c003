"""Idempotency keys on writes (issue 13, seed 003), through the real `b2g` on a built demo."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bib2graph.atomic import sha256_text
from bib2graph.service.idempotency import RECORDS

from .helpers import b2g


def _reject(ws: Path, key: str, *ids: str, reason: str = "off topic"):
    return b2g("reject", *ids, "--reason", reason, "--by", "me", "--idempotency-key", key, "--json",
               "--workspace", str(ws))


def test_a_reject_repeated_with_its_key_records_one_decision_and_another_request_is_refused(demo):
    works = [w["work_id"] for w in b2g("queue", "-n", "2", "--json", "--workspace", str(demo)).envelope["data"]["works"]]
    first = _reject(demo, "k1", *works)
    recorded = (demo / "config/curation.tsv").read_bytes()
    repeat = _reject(demo, "k1", *works)
    assert first.envelope["data"] == repeat.envelope["data"] and first.envelope["data"]["changed"] == sorted(works)
    assert (demo / "config/curation.tsv").read_bytes() == recorded     # one decision each, its time kept
    assert "nothing was done again" in repeat.envelope["warnings"][-1]
    conflict = _reject(demo, "k1", *works, reason="another reason")
    assert conflict.returncode == 1
    assert conflict.envelope["error"]["code"] == "IDEMPOTENCY_CONFLICT"
    assert conflict.envelope["error"]["retryable"] is False and conflict.envelope["error"]["details"]["key"] == "k1"
    assert (demo / "config/curation.tsv").read_bytes() == recorded


def test_a_failed_call_records_nothing_so_its_retry_acts_again(demo):
    failed = [_reject(demo, "k2", "W999999999") for _ in range(2)]
    assert [f.envelope["error"]["code"] for f in failed] == ["UNKNOWN_ID", "UNKNOWN_ID"]
    assert not (demo / RECORDS / f"{sha256_text('k2')}.json").exists()


def _holds_lock(pid: int, path: Path) -> bool:
    """Whether process `pid` holds an OS lock on `path`, as the kernel's lock table says."""
    try:
        inode = path.stat().st_ino
    except FileNotFoundError:
        return False
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if "FLOCK" in fields and str(pid) in fields and any(f.endswith(f":{inode}") for f in fields):
            return True
    return False


@pytest.mark.long
def test_a_run_repeated_with_its_key_while_it_runs_does_not_start_a_second(demo):
    key, logs = "nightly", demo / ".snakemake/log"
    before = len(list(logs.iterdir()))
    env = {k: v for k, v in os.environ.items() if not k.startswith("B2G_")}
    first = subprocess.Popen([sys.executable, "-m", "bib2graph", "run", "--idempotency-key", key, "--json",
                              "--workspace", str(demo)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL, text=True, env=env)
    lock = demo / RECORDS / f"{sha256_text(key)}.lock"
    while not _holds_lock(first.pid, lock):      # wait for the claim itself, then hold the first call there
        assert first.poll() is None, "the first run ended before it was seen holding its key"
        time.sleep(0.005)
    os.kill(first.pid, signal.SIGSTOP)
    try:
        second = b2g("run", "--idempotency-key", key, "--json", "--workspace", str(demo))
    finally:
        os.kill(first.pid, signal.SIGCONT)
    done = json.loads(first.communicate(timeout=600)[0])
    assert second.returncode == 5 and second.envelope["error"]["code"] == "IDEMPOTENCY_IN_PROGRESS"
    assert second.envelope["error"]["retryable"] is True
    third = b2g("run", "--idempotency-key", key, "--json", "--workspace", str(demo))
    assert done["ok"] is True and third.envelope["data"] == done["data"]
    assert len(list(logs.iterdir())) == before + 1          # Snakemake started once
