"""Running the real `b2g` (and through it the real Snakemake workflow) as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import jsonschema

from bib2graph.service.contract import schema_of


@dataclass
class Call:
    returncode: int
    stdout: str
    stderr: str

    @property
    def envelope(self) -> dict:
        """The one JSON line on stdout, checked against the contract's schemas and this call's exit code."""
        lines = self.stdout.splitlines()
        assert len(lines) == 1, f"expected one JSON line on stdout, got {len(lines)}: {self.stdout[:500]!r}"
        env = json.loads(lines[0])
        check_envelope(env)
        assert env["exit_code"] == self.returncode
        return env


def check_envelope(env: dict) -> None:
    """Validate an envelope, and on success its data, against docs/contract/*.schema.json."""
    jsonschema.validate(env, schema_of("envelope"))
    if env["ok"]:
        jsonschema.validate(env["data"], schema_of(env["command"]))


def b2g(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: int = 600) -> Call:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("B2G_")}
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "bib2graph", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return Call(proc.returncode, proc.stdout, proc.stderr)


def tree_state(folder: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime_ns) of every file below `folder`: what a no-op must leave untouched."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def ran_jobs(stderr: str) -> set[str]:
    """The jobs Snakemake says it executed, as `rule` or `rule:kind` (rules that make no file left out)."""
    jobs, current = set(), None
    for line in stderr.splitlines():
        stripped = line.strip()
        if stripped.startswith(("localrule ", "rule ")) and stripped.endswith(":"):
            current = stripped.split(" ", 1)[1][:-1]
            jobs.add(current)
        elif current and stripped.startswith("wildcards:"):
            jobs.discard(current)
            jobs.add(f"{current}:{stripped.split('=', 1)[1]}")
            current = None
    return jobs - {"all", "networks", "exports"}
