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
    from bib2graph.service.run import _bad_thread_counts, _snakemake_options

    def bad(args):
        return _bad_thread_counts(_snakemake_options(args))

    assert bad(["--set-threads", "layout=abc", "network=2", "--cores", "2"]) == ["layout=abc"]
    assert bad(["--set-threads=layout=1+"]) == ["layout=1+"]
    assert bad(["--set-th", "network=2*attempt", "layout=$NCPUS", "export=min(2, attempt)"]) == []
    assert bad(["--set-resources", "network:mem_mb=x", "--forcerun", "layout"]) == []


def test_resources_snakemake_would_stop_on_at_its_first_job_are_refused(monkeypatch):
    """`--set-resources layout:mem_mb=abc` (and `--default-resources`) were taken by Snakemake, which then
    stopped at the first job with a traceback (WORKFLOW_FAILED); Snakemake's own evaluation judges each
    value, and what needs a real job's input, or is text for a resource of the user's own, is let through."""
    from bib2graph.service.run import _bad_resources, _snakemake_options

    monkeypatch.delenv("B2G_NO_SUCH_VARIABLE", raising=False)
    monkeypatch.setenv("B2G_MEMORY", "4000")

    def bad(*args):
        args = list(args)
        return [b.split(": ")[0] for b in _bad_resources(_snakemake_options(args), args)]

    assert bad("--set-resources", "layout:mem_mb=abc", "network:mem=lots", "export:runtime=zz",
               "seed:mem_mb='2GB'", "chain:mem_mb=$B2G_NO_SUCH_VARIABLE") == [
        "chain:mem_mb", "export:runtime", "layout:mem_mb", "network:mem_mb", "seed:mem_mb"]
    assert bad("--default-resources", "mem_mb=abc", "--cores", "2") == ["*:mem_mb"]
    assert bad("--set-resources=layout:runtime=1h", "network:mem='8GB'", "export:mem_mb=2000*attempt",
               "seed:slurm_partition=gpu", "chain:disk_mb=max(input.size_mb, 100)", "sources:mem_mb=threads*500",
               "corpus:mem_mb=$B2G_MEMORY", "--default-resources", "slurm_account=lab", "mem_mb=1000") == []
    assert bad("--cores", "2", "--forcerun", "layout") == []


@pytest.mark.parametrize("args, said", [(["--set-resources", "bogus"], "RULE:RESOURCE=VALUE"),
                                        (["--set-threads", "bogus"], "RULE=THREADS"),
                                        (["--resources", "mem_mb=abc"], "not an integer"),
                                        (["--set-resources", "layout:=3"], "valid identifier"),
                                        (["--set-scatter", "x=y"], "Invalid scatter definition"),
                                        (["--target-jobs", "bogus"], "not of the form"),
                                        (["--consider-ancient", "x"], "--consider-ancient"),
                                        (["--configfile", "/b2g/no/such.yaml"], "--configfile /b2g/no/such.yaml"),
                                        (["--config", "a=b"], "valid identifier"),
                                        (["--config", "novalue"], "name=value"),
                                        (["--profile", "/b2g/no/profile"], "is no folder"),
                                        (["--workflow-profile", "/b2g/no/profile"], "is no folder")])
def test_an_option_value_snakemake_cannot_parse_is_said_with_its_reason(args, said):
    """Snakemake raised these from its argument parser (ValueError, WorkflowError) and stopped with a
    traceback, WORKFLOW_FAILED; its reason is now the usage error's."""
    from bib2graph.service.run import _snakemake_options

    assert said in _snakemake_options(args)
    assert _snakemake_options(["--cores", "2", "--forcerun", "layout", "-n"]) is None     # not parsed twice
    assert not isinstance(_snakemake_options(["--cores", "2", "--set-scatter", "x=2"]), str)
    assert not isinstance(_snakemake_options(["--config", "alpha=1", "--profile", "slurm"]), str)  # a name: looked up


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
