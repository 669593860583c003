"""A SIGTERM that reaches `b2g` before `main` runs (while the command line loads) or a run the API
cancels before it answers: still one INTERRUPTED envelope, never a silent death."""

from __future__ import annotations

import json
import subprocess
import sys

from bib2graph.service.jobs import outcome

#: `b2g status --json` in a process that sends itself SIGTERM after the command line is imported and
#: before `main` runs: the moment the process used to die with exit 143 and nothing on stdout
EARLY = """
import os, signal, sys
sys.argv = ["b2g", "status", "--json", "--workspace", sys.argv[1]]
import bib2graph.cli as cli
os.kill(os.getpid(), signal.SIGTERM)
raise SystemExit(cli.main())
"""


def test_a_sigterm_while_the_command_line_loads_ends_in_the_interrupted_envelope(tmp_path):
    done = subprocess.run([sys.executable, "-c", EARLY, str(tmp_path)], capture_output=True, text=True,
                          timeout=120)
    envelope = json.loads(done.stdout)
    assert done.returncode == 5 == envelope["exit_code"], (done.returncode, done.stderr[-500:])
    assert envelope["error"]["code"] == "INTERRUPTED" and envelope["command"] == "status"
    assert "Traceback" not in done.stderr


def test_a_program_importing_the_command_line_keeps_its_own_sigterm():
    """Only `b2g` itself defers the signal: a test runner or a notebook importing bib2graph.cli dies by it."""
    done = subprocess.run([sys.executable, "-c", "import os, signal, bib2graph.cli; os.kill(os.getpid(), "
                           "signal.SIGTERM); print('survived')"], capture_output=True, text=True, timeout=120)
    assert done.returncode == -15 and "survived" not in done.stdout


def test_a_run_cancelled_before_it_answered_has_the_interrupted_envelope():
    state, envelope = outcome(None, cancelled=True)
    assert state == "cancelled" and envelope["error"]["code"] == "INTERRUPTED" and envelope["exit_code"] == 5
    assert envelope["command"] == "run" and envelope["ok"] is False
    assert outcome(None, cancelled=False) == ("failed", None)
    interrupted = {"ok": False, "error": {"code": "INTERRUPTED"}}
    assert outcome(interrupted, cancelled=True) == ("cancelled", interrupted)
    failed = {"ok": False, "error": {"code": "WORKFLOW_FAILED"}}
    assert outcome(failed, cancelled=True) == ("failed", failed)
    assert outcome({"ok": True}, cancelled=True) == ("succeeded", {"ok": True})
