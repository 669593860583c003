"""Regenerate docs/contract/examples/ (the golden outputs of every verb, seed 004) from a fresh demo build.

    .venv/bin/python scripts/regenerate_examples.py        (or: make examples)

Builds the bundled demo in a temporary folder (`b2g init` + `b2g run`), runs the scenario of
tests/contract/examples.py on it against the loopback OpenAlex test server, and rewrites every
example; `git diff docs/contract/examples` then shows what a change did to the contract.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import DEMO_ZIP  # noqa: E402
from tests.contract.examples import EXAMPLES, example_path, run_scenario  # noqa: E402
from tests.openalex_server import OpenAlexTestServer, load_works  # noqa: E402


def build_demo(ws: Path) -> None:
    for args in (["init", str(ws)], ["run", "--cores", "2", "--workspace", str(ws)]):
        subprocess.run([sys.executable, "-m", "bib2graph", *args, "--json"], check=True,
                       stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="b2g-examples-") as tmp:
        scratch = Path(tmp)
        ws = scratch / "review"
        build_demo(ws)
        shutil.rmtree(EXAMPLES, ignore_errors=True)
        with OpenAlexTestServer(load_works([DEMO_ZIP]), retry_after=0) as server:
            for step, _env, text in run_scenario(ws, scratch, server.url):
                path = example_path(step.name)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
                print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
