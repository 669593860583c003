"""The Snakemake command line `b2g run` builds: options that take several values (`--rerun-triggers`,
`--forcerun`) must not swallow the targets, with or without a workspace profile."""

from __future__ import annotations

import argparse

from bib2graph.service.run import snakemake_command
from bib2graph.service.workspace import Workspace


def _targets(cmd: list[str]) -> list[str]:
    """The positional arguments Snakemake's own parser would see."""
    from snakemake.cli import get_argument_parser

    parser: argparse.ArgumentParser = get_argument_parser()
    return parser.parse_args(cmd[cmd.index("snakemake") + 1:]).targets


def test_targets_survive_without_a_profile_and_with_cores_given(tmp_path):
    targets = ["results/sources/works.parquet", "results/seed/seeds.parquet"]
    bare = Workspace(tmp_path, "flag")
    assert _targets(snakemake_command(bare, targets, ["--cores", "2"])) == targets
    assert _targets(snakemake_command(bare, targets, ["--forcerun", "results/seed/manifest.json"])) == targets
    (tmp_path / "profiles/default").mkdir(parents=True)
    (tmp_path / "profiles/default/config.yaml").write_text("cores: 1\n")
    assert _targets(snakemake_command(Workspace(tmp_path, "flag"), targets, [])) == targets
