"""The envelope and exit codes on the paths that need no workflow run."""

from __future__ import annotations

import pytest

from bib2graph import __version__
from bib2graph.paths import profiles_dir

from ..conftest import DEMO_ZIP
from ..integration.helpers import b2g, check_envelope

SYNERGY_LABELS = DEMO_ZIP.parent / "labels.csv"

KEYS = {"schema", "ok", "command", "exit_code", "data", "warnings", "error"}


def test_unknown_verb_by_env_is_a_usage_envelope():
    call = b2g("nosuchverb", env={"B2G_JSON": "1"})
    assert call.returncode == 2 and call.stderr == ""
    env = call.envelope
    assert set(env) == KEYS and env["error"]["code"] == "USAGE_ERROR" and env["command"] == "nosuchverb"


def test_unknown_flag_before_json_is_still_an_envelope():
    call = b2g("status", "--nosuchflag", "--json")
    assert call.returncode == 2 and call.stderr == ""
    assert call.envelope["error"]["code"] == "USAGE_ERROR" and call.envelope["command"] == "status"


def test_a_subverb_takes_json_after_its_group_and_its_usage_errors_name_it_whole(tmp_path):
    """`b2g curate --json dump` was refused ("No such option '--json'", command "curate"); a subverb's
    usage error named it "dump" or "diff" where its answers say "curate dump", "snapshot diff"."""
    assert b2g("init", str(tmp_path)).returncode == 0
    dump = b2g("curate", "--json", "dump", "--workspace", str(tmp_path))
    assert dump.envelope["command"] == "curate dump" and dump.envelope["error"]["code"] == "ARTIFACT_MISSING"
    for args, command in ((("snapshot", "diff", "onlyone"), "snapshot diff"), (("curate", "dump", "--bogus"), "curate dump"),
                          (("snapshot", "list", "--bogus"), "snapshot list")):
        call = b2g(*args, "--json", "--workspace", str(tmp_path))
        assert call.returncode == 2 and call.envelope["error"]["code"] == "USAGE_ERROR"
        assert call.envelope["command"] == command, args


def test_human_usage_error_goes_to_stderr():
    call = b2g("nosuchverb")
    assert call.returncode == 2 and call.stdout == "" and "No such command" in call.stderr


def test_no_workspace_is_exit_5(tmp_path):
    call = b2g("status", "--json", cwd=tmp_path)
    assert call.returncode == 5
    assert call.envelope["error"]["code"] == "WORKSPACE_NOT_FOUND"
    assert "b2g init" in call.envelope["error"]["message"]


def test_workspace_from_env_and_walk_up(tmp_path):
    assert b2g("init", str(tmp_path / "ws")).returncode == 0
    sub = tmp_path / "ws" / "config"
    by_env = b2g("reject", "W1", "--reason", "x", "--json", env={"B2G_WORKSPACE": str(tmp_path / "ws")})
    assert by_env.returncode == 0, by_env.stdout
    assert by_env.envelope["data"]["workspace"] == {"root": str(tmp_path / "ws"), "source": "env"}
    walked = b2g("accept", "W1", "--json", cwd=sub)
    assert walked.envelope["data"]["workspace"]["source"] == "walk-up"
    assert any("walking up" in w for w in walked.envelope["warnings"])


def test_an_empty_folder_name_is_no_current_directory(tmp_path):
    """`b2g init "$DIR"` or `-w "$DIR"` with DIR unset must not act on wherever the script stands."""
    for args in (["init", ""], ["status", "--workspace", ""], ["init", "  "]):
        call = b2g(*args, "--json", cwd=tmp_path)
        assert (call.returncode, call.envelope["error"]["code"]) == (1, "USAGE_ERROR"), call.stdout
        assert "is empty" in call.envelope["error"]["message"]
    assert list(tmp_path.iterdir()) == []


def test_a_folder_inside_a_workspace_points_at_it(tmp_path):
    assert b2g("init", str(tmp_path / "ws")).returncode == 0
    for inside in ("config", "config/research.yaml", "results/networks"):
        call = b2g("status", "--json", "--workspace", str(tmp_path / "ws" / inside))
        assert call.envelope["error"]["code"] == "WORKSPACE_NOT_FOUND"
        assert f"pass --workspace {tmp_path / 'ws'}" in call.envelope["error"]["message"]


@pytest.mark.parametrize("name", ["-x", "a" * 201, "a/b", ""])
def test_a_snapshot_name_no_folder_or_command_line_can_hold_is_bad_name(tmp_path, name):
    assert b2g("init", str(tmp_path / "ws")).returncode == 0
    call = b2g("snapshot", f"--name={name}", "--json", "--workspace", str(tmp_path / "ws"))
    assert (call.returncode, call.envelope["error"]["code"]) == (2, "BAD_NAME"), call.stdout


def test_a_seed_past_what_the_replay_table_holds_is_refused_before_any_work(tmp_path):
    call = b2g("simulate", "--seed", str(2**32), "--json", "--workspace", str(tmp_path))
    assert (call.returncode, call.envelope["error"]["code"]) == (2, "USAGE_ERROR"), call.stdout


def test_init_refuses_to_overwrite(tmp_path):
    assert b2g("init", str(tmp_path)).returncode == 0
    again = b2g("init", str(tmp_path), "--json")
    assert again.returncode == 2 and again.envelope["error"]["code"] == "WORKSPACE_EXISTS"


def test_init_keeps_a_tuned_profile_unless_forced(tmp_path):
    tuned = tmp_path / "profiles/slurm/config.yaml"
    tuned.parent.mkdir(parents=True)
    tuned.write_text("executor: slurm\njobs: 7\n", encoding="utf-8")
    created = b2g("init", str(tmp_path), "--json").envelope["data"]["created"]
    assert "profiles/default/config.yaml" in created and "profiles/slurm/config.yaml" not in created
    assert tuned.read_text(encoding="utf-8") == "executor: slurm\njobs: 7\n"
    forced = b2g("init", str(tmp_path), "--force", "--json").envelope["data"]["created"]
    assert "profiles/slurm/config.yaml" in forced
    assert tuned.read_text(encoding="utf-8") == (profiles_dir() / "slurm/config.yaml").read_text(encoding="utf-8")


def test_init_never_replaces_the_decisions(tmp_path):
    """A folder whose spec went missing (WORKSPACE_NOT_FOUND says `b2g init DIR`), or whose empty spec is
    rewritten with --force as SPEC_INVALID advises, keeps every decision of its curation file."""
    assert b2g("init", str(tmp_path)).returncode == 0
    assert b2g("reject", "W1", "--reason", "off topic", "--workspace", str(tmp_path)).returncode == 0
    curation = tmp_path / "config/curation.tsv"
    decided = curation.read_bytes()
    (tmp_path / "config/research.yaml").unlink()
    again = b2g("init", str(tmp_path), "--json")
    assert again.returncode == 0 and "config/curation.tsv" not in again.envelope["data"]["created"]
    (tmp_path / "config/research.yaml").write_text("", encoding="utf-8")
    forced = b2g("init", str(tmp_path), "--force", "--json")
    assert forced.returncode == 0 and "config/research.yaml" in forced.envelope["data"]["created"]
    assert curation.read_bytes() == decided and b"off topic" in decided


@pytest.mark.long
def test_out_never_overwrites_what_the_workspace_keeps_or_the_call_reads(tmp_path):
    """`curate dump --out` and `simulate --out` into config/ (the decisions, the spec), onto the labels file
    being read, or onto a folder are refused before anything is written (USAGE_ERROR): each replaced the
    file whole before."""
    import shutil

    root = tmp_path / "ws"
    assert b2g("init", str(root)).returncode == 0
    assert b2g("reject", "W1", "--reason", "off topic", "--workspace", str(root)).returncode == 0
    config = {p: p.read_bytes() for p in (root / "config").iterdir() if p.is_file()}
    labels = tmp_path / "labels.csv"
    shutil.copyfile(SYNERGY_LABELS, labels)
    (tmp_path / "folder").mkdir()
    other = tmp_path / "other"
    assert b2g("init", str(other)).returncode == 0
    others = {p: p.read_bytes() for p in (other / "config").iterdir() if p.is_file()}
    calls = [("curate", "dump", "--out", str(root / "config/curation.tsv")),
             ("curate", "dump", "--out", str(root / "config/../config/research.yaml")),
             ("curate", "dump", "--out", str(tmp_path / "folder")),
             ("simulate", "--labels", str(labels), "--out", "config/curation.tsv"),
             ("simulate", "--labels", str(labels), "--out", str(labels)),
             ("curate", "dump", "--out", str(other / "config/curation.tsv")),      # another workspace's
             ("simulate", "--labels", str(labels), "--out", str(other / "config/sub/x.parquet")),
             # the workflow's artifacts (the table dump reads), its state, a sealed snapshot: each was replaced
             ("curate", "dump", "--out", str(root / "results/chain/pool/works.parquet")),
             ("simulate", "--labels", str(labels), "--out", "results/networks/coupling/edges.parquet"),
             ("curate", "dump", "--out", str(root / ".snakemake/b2g/x.csv")),
             ("curate", "dump", "--out", str(root / "results/snapshots/s1/results/curation/to-screen.csv")),
             ("curate", "dump", "--out", ""), ("simulate", "--labels", str(labels), "--out", " ")]
    kept = root / "results/chain/pool/works.parquet"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"PAR1 the pool")
    for call in calls:
        answer = b2g(*call, "--json", "--workspace", str(root), cwd=root)   # a relative --out: from the cwd
        assert answer.returncode == 1 and answer.envelope["error"]["code"] == "USAGE_ERROR", (call, answer.stdout)
        assert "--out" in answer.envelope["error"]["message"]
    for into in (root / "config/restored", root / "results/snapshots/s1/inner", root / "config/curation.tsv", ""):
        answer = b2g("snapshot", "restore", "s1", "--into", str(into), "--json", "--workspace", str(root))
        assert answer.returncode == 1 and answer.envelope["error"]["code"] == "USAGE_ERROR", (into, answer.stdout)
        assert "--into" in answer.envelope["error"]["message"]
    assert kept.read_bytes() == b"PAR1 the pool" and not (root / "config/restored").exists()
    assert not (root / ".snakemake/b2g/x.csv").exists() and not (root / "results/curation").exists()
    assert {p: p.read_bytes() for p in (root / "config").iterdir() if p.is_file()} == config
    assert {p: p.read_bytes() for p in (other / "config").iterdir() if p.is_file()} == others
    assert labels.read_bytes() == SYNERGY_LABELS.read_bytes() and (tmp_path / "folder").is_dir()


def test_arguments_that_are_not_utf8_are_usage_errors(tmp_path):
    """A Latin-1 terminal's "café" (the byte 0xE9, which Python hands over as a lone surrogate) in
    --reason, --by or B2G_USER was INTERNAL with a traceback; it is USAGE_ERROR and records nothing."""
    assert b2g("init", str(tmp_path)).returncode == 0
    curation = (tmp_path / "config/curation.tsv").read_bytes()
    for args, env in ((("reject", "W1", "--reason", "caf\udce9"), None), (("accept", "W1", "--by", "caf\udce9"), None),
                      (("accept", "W1"), {"B2G_USER": "caf\udce9"}), (("search", "caf\udce9"), None)):
        call = b2g(*args, "--json", "--workspace", str(tmp_path), env=env)
        assert call.returncode == 1 and call.envelope["error"]["code"] == "USAGE_ERROR", (args, call.stdout)
        assert "UTF-8" in call.envelope["error"]["message"] and "Traceback" not in call.stderr
    assert (tmp_path / "config/curation.tsv").read_bytes() == curation


@pytest.mark.long
def test_an_answer_stdout_cannot_take_is_exit_5_without_a_traceback(tmp_path):
    """stdout on a full device (/dev/full) or a pipe whose reader left: exit 5 (an OSError), one line on
    stderr, no traceback (it was exit 1 and a traceback)."""
    import subprocess
    import sys

    assert b2g("init", str(tmp_path)).returncode == 0
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "bib2graph", "status", "--json", "--workspace", str(tmp_path)],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 5 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "could not be written to stdout" in proc.stderr
    piped = subprocess.Popen([sys.executable, "-m", "bib2graph", "schema", "--json"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    piped.stdout.close()          # the reader is gone before the answer comes
    assert piped.wait(timeout=120) == 5 and "Traceback" not in piped.stderr.read()
    closed = subprocess.run(["sh", "-c", f'"{sys.executable}" -m bib2graph networks --json --workspace '
                             f'"{tmp_path}" >&-'], stderr=subprocess.PIPE, text=True, timeout=120)
    assert closed.returncode == 5 and "Traceback" not in closed.stderr    # it was exit 0, the answer lost unsaid
    assert "stdout is closed" in closed.stderr and "ended with exit 0" in closed.stderr


def test_reject_without_reason_is_usage(tmp_path):
    assert b2g("init", str(tmp_path)).returncode == 0
    call = b2g("reject", "W1", "--json", "--workspace", str(tmp_path))
    assert call.returncode == 1 and call.envelope["error"]["code"] == "USAGE_ERROR"  # usage inside a command


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["status", "--help"], ["accept", "--help"],
                                  ["reject", "--help"], ["init", "--help"]])
def test_help_exits_0(args):
    call = b2g(*args)
    assert call.returncode == 0 and "Usage" in call.stdout


@pytest.mark.parametrize("args, verbs", [(["status", "--help"], ["status"]), (["curate", "dump", "-h"], ["curate dump"]),
                                         (["--help"], None), (["curate", "--help"], None)])
def test_help_in_json_mode_is_the_verbs_schema_envelope(args, verbs):
    """Click's help text on stdout broke "one JSON line" for a caller with B2G_JSON=1."""
    call = b2g(*args, env={"B2G_JSON": "1"})
    assert call.returncode == 0 and call.stdout.count("\n") == 1
    assert call.envelope["command"] == "schema" and call.envelope["ok"]
    listed = sorted(call.envelope["data"]["verbs"])
    assert listed == verbs if verbs else len(listed) > 20


def test_version_names_contract():
    call = b2g("--version")
    assert call.returncode == 0 and "contract 1" in call.stdout
    for args, env in ((("--version", "--json"), None), (("--json", "--version"), None), (("--version",), {"B2G_JSON": "1"})):
        call = b2g(*args, env=env)      # a script asking for JSON gets the envelope, not a line of text
        assert call.returncode == 0 and call.envelope["data"] == {"version": __version__, "contract": "1"}
        check_envelope(call.envelope)


@pytest.mark.parametrize("args", [("monitor", "--timeout", "nan"), ("monitor", "--timeout", "inf"),
                                  ("monitor", "--timeout", "1e308"), ("accept", "W1", "--wait", "nan"),
                                  ("reject", "W1", "--reason", "r", "--wait", "-inf")])
def test_a_number_no_clock_can_take_is_a_usage_error(args, tmp_path):
    """`nan` passed Click's bounds (no comparison holds) and `inf` or 1e308 seconds reached the timer:
    INTERNAL, exit 70. Every float option takes finite numbers only, and --timeout at most a day."""
    call = b2g(*args, "--json", "--workspace", str(tmp_path))
    assert call.returncode == 2 and call.envelope["error"]["code"] == "USAGE_ERROR", call.envelope
    assert "Traceback" not in call.stderr


def test_validate_of_a_workspace_with_no_artifact_says_it_checked_none(tmp_path):
    """It answered ok with nothing said, as if every artifact had been checked."""
    assert b2g("init", str(tmp_path)).returncode == 0
    fresh = b2g("validate", "--json", "--workspace", str(tmp_path)).envelope
    assert fresh["ok"] and any("no artifact is built yet" in w for w in fresh["warnings"])
    (tmp_path / "results").write_text("not a folder", encoding="utf-8")
    blocked = b2g("validate", "--json", "--workspace", str(tmp_path)).envelope
    assert blocked["ok"] and any("results is a file" in w for w in blocked["warnings"])
