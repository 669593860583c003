"""The Snakemake command line `b2g run` builds: options that take several values (`--rerun-triggers`,
`--forcerun`) must not swallow the targets, with or without a workspace profile."""

from __future__ import annotations

import argparse

import pytest

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


def test_a_phase_named_as_the_value_of_a_snakemake_option_is_no_phase_to_run_up_to():
    """`b2g run corpus --forcerun chain`: chain is Snakemake's (a rule to re-run), corpus is b2g's; the
    split agrees with Snakemake's own parser on every arrangement."""
    from bib2graph.service.run import PHASES, _option_values

    cases = {("--forcerun", "chain"): [], ("corpus", "--forcerun", "chain"): ["corpus"],
             ("--forcerun", "chain", "seed", "--cores", "1"): [], ("--until", "corpus", "--dry-run"): [],
             ("--cores", "2", "corpus"): ["corpus"], ("-n", "corpus"): ["corpus"],
             ("--forcerun=chain", "corpus"): ["corpus"], ("-R", "seed", "--", "networks"): ["networks"],
             ("corpus", "--cores", "2"): ["corpus"]}
    for args, phases in cases.items():
        values = _option_values(list(args))
        assert [a for i, a in enumerate(args) if a in PHASES and i not in values] == phases, args
        seen = _targets(["snakemake", *args])        # what Snakemake would take as targets of the same line
        assert [a for a in seen if a in PHASES] == phases, args


def test_a_word_that_is_no_phase_nor_an_option_value_is_a_usage_error(tmp_path):
    """`b2g run bogus` ran Snakemake, which stopped on the word with its whole usage text (WORKFLOW_FAILED,
    exit 2); the word is found first, as Snakemake's parser would find it, and nothing runs."""
    from bib2graph.errors import UsageError
    from bib2graph.service.init import init_workspace
    from bib2graph.service.run import PHASES, _strays, run_workflow

    cases = {("bogus",): ["bogus"], ("corpus", "bogus"): ["bogus"], ("--cores", "2", "bogus", "corpus"): ["bogus"],
             ("--forcerun", "network", "clusters"): [], ("-R", "seed", "chain", "--cores", "1"): [],
             ("--cores", "2"): [], ("--cores=2", "bogus"): ["bogus"], ("report", "-n"): [],
             ("--until", "corpus", "--dry-run"): [], ("--config", "a=1", "b=2", "corpus"): []}
    for args, strays in cases.items():
        assert _strays(list(args)) == strays, args
        seen = _targets(["snakemake", *args])        # what Snakemake would take as targets of the same line
        assert [a for a in seen if a not in PHASES] == strays, args
    root = tmp_path / "ws"
    init_workspace(root)
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    with pytest.raises(UsageError, match="'bogus' is no phase"):
        run_workflow(Workspace(root, "flag"), ["corpus", "bogus"])
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


def test_only_thread_counts_snakemake_can_read_only_as_text_are_refused():
    """`--set-threads layout=abc` stopped Snakemake at its first job with a traceback; a number or an
    expression Snakemake evaluates (attempt, an environment variable) is Snakemake's to judge."""
    from bib2graph.service.run import _bad_thread_counts

    assert _bad_thread_counts(["--set-threads", "layout=abc", "network=2", "--cores", "2"]) == ["layout=abc"]
    assert _bad_thread_counts(["--set-threads=layout=1+"]) == ["layout=1+"]
    assert _bad_thread_counts(["--set-th", "network=2*attempt", "layout=$NCPUS", "export=min(2, attempt)"]) == []
    assert _bad_thread_counts(["--set-resources", "network:mem_mb=x", "--forcerun", "layout"]) == []


@pytest.mark.parametrize("args", [["-w/tmp/x"], ["--workspace=/tmp/x"], ["-d/tmp/x"], ["--dir=/tmp/x"],
                                  ["--snake", "/x"], ["-nd/tmp/x"], ["-s/x"], ["--cores", "1", "--direct", "/x"],
                                  ["--", "-d/tmp/x"], ["--di=/tmp/x"], ["--sn=x"],
                                  ["--cores", "x", "--direc=/tmp/x"], ["--set-threads", "bad", "-nd/x"]])
def test_a_run_started_by_the_api_or_mcp_cannot_be_pointed_elsewhere(args):
    """Whole words were matched: `-w/x` (Click's joined value), `--dir` and `--snake` (Snakemake's
    abbreviations) and `-nd/x` (grouped short flags) pointed the server's run at another folder."""
    from bib2graph.errors import UsageError
    from bib2graph.service.jobs import check_request

    with pytest.raises(UsageError, match="cannot be passed"):
        check_request("seed", args)


def test_a_run_started_by_the_api_keeps_its_snakemake_options():
    from bib2graph.service.jobs import check_request

    for args in (["--cores", "2"], ["-np"], ["--forcerun", "network", "clusters"], ["--wait-for-files", "x"], [],
                 ["--cores", "x", "--dry-run"], ["--set-threads", "bad", "-n"], ["-Cdir=s"], ["--dry-run"]):
        assert check_request("seed", args) == ["seed", *args]   # a bad value is Snakemake's to refuse
