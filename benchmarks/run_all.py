"""Run every benchmark in benchmarks/ (bench_*.py), each in its own process, and print its table.

By default each runs at a small size, so that `make bench` finishes in minutes on a shared machine;
`--full` runs each at its own defaults (10k, 50k and 100k works for the networks; 200 seeds over the
five SYNERGY sets for the fetch; 100k records for the WoS reader; 2k and 20k works for the exports), which takes far longer. A script that fails does not stop the others;
the exit status is 1 when any failed.

    python benchmarks/run_all.py            # small sizes
    python benchmarks/run_all.py --full     # the scripts' own, large defaults
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the arguments that make each benchmark small; a script not listed runs at its defaults
SMALL = {"bench_fetch.py": ["--seeds", "50"], "bench_networks.py": ["--sizes", "10000"],
         "bench_exports.py": ["--sizes", "2000"], "bench_bibliography.py": ["--works", "20000"],
         "bench_layout.py": ["--nodes", "10000", "--edges", "100000"],
         "bench_gui.py": ["--nodes", "10000", "--edges", "100000"],
         "bench_readers.py": ["--records", "10000"], "bench_bibtex.py": ["--records", "2000"],
         "bench_screening.py": ["--reviews", str(HERE.parents[1] / "shared/data/synergy/Donners_2021"),
                                "--seeds", "0", "1", "--pending", "2000", "--repeat", "3", "--scale", "1500"]}


def run(script: Path, args: list[str]) -> bool:
    """Run one benchmark with its output going straight to ours; True when it succeeded."""
    print(f"== {script.name} {' '.join(args)}".rstrip(), flush=True)
    start = time.perf_counter()
    code = subprocess.call([sys.executable, str(script), *args], stdin=subprocess.DEVNULL)
    print(f"== {script.name}: {'ok' if code == 0 else f'failed (exit {code})'} in "
          f"{time.perf_counter() - start:.0f} s\n", flush=True)
    return code == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="run each benchmark at its own (large) defaults")
    args = parser.parse_args(argv)
    scripts = sorted(HERE.glob("bench_*.py"))
    failed = [s.name for s in scripts if not run(s, [] if args.full else SMALL.get(s.name, []))]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
