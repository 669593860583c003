"""The envelope and exit codes on the paths that need no workflow run."""

from __future__ import annotations

import pytest

from bib2graph.paths import profiles_dir

from ..integration.helpers import b2g

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


def test_reject_without_reason_is_usage(tmp_path):
    assert b2g("init", str(tmp_path)).returncode == 0
    call = b2g("reject", "W1", "--json", "--workspace", str(tmp_path))
    assert call.returncode == 1 and call.envelope["error"]["code"] == "USAGE_ERROR"  # usage inside a command


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["status", "--help"], ["accept", "--help"],
                                  ["reject", "--help"], ["init", "--help"]])
def test_help_exits_0(args):
    call = b2g(*args)
    assert call.returncode == 0 and "Usage" in call.stdout


def test_version_names_contract():
    call = b2g("--version")
    assert call.returncode == 0 and "contract 1" in call.stdout


@pytest.mark.parametrize("args", [("monitor", "--timeout", "nan"), ("monitor", "--timeout", "inf"),
                                  ("monitor", "--timeout", "1e308"), ("accept", "W1", "--wait", "nan"),
                                  ("reject", "W1", "--reason", "r", "--wait", "-inf")])
def test_a_number_no_clock_can_take_is_a_usage_error(args, tmp_path):
    """`nan` passed Click's bounds (no comparison holds) and `inf` or 1e308 seconds reached the timer:
    INTERNAL, exit 70. Every float option takes finite numbers only, and --timeout at most a day."""
    call = b2g(*args, "--json", "--workspace", str(tmp_path))
    assert call.returncode == 2 and call.envelope["error"]["code"] == "USAGE_ERROR", call.envelope
    assert "Traceback" not in call.stderr
