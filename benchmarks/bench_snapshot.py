"""The OpenAlex snapshot source at scale (200,000 works by default): a synthetic snapshot in OpenAlex's
layout (tests/snapshot_builder.py: the real SYNERGY works of ../shared/data, replicated with new IDs and
citations, in dated partitions with a manifest), read stage by stage as the workflow does.

Each stage runs in its own child process, so that its peak resident memory is its own: every
`snapshot_part` job (one partition → bundle tables; the slowest and the largest are printed, and the
sum, which is the scatter's time on one core), the `sources` gather into results/sources/, and the
universe seed and chain build from it (`FileUniverse`). The floor, measured in the same run on the same
largest partition: gzip and `json.loads` of every line, nothing kept (best of two).

    python benchmarks/bench_snapshot.py                  # 200,000 works, 4 dates × 2 parts
    python benchmarks/bench_snapshot.py --works 20000 --dates 2 --parts 2
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))


def _peak_mb() -> float:
    """This process's peak resident memory (VmHWM: unlike ru_maxrss, not inherited across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def stage(name: str, folder: Path, arg: str) -> dict:
    """Run one stage here (in the child) and return its seconds and peak MB."""
    start = time.perf_counter()
    if name == "build":
        from tests.snapshot_builder import replicate, synergy_works, write_snapshot

        works, dates, parts = (int(x) for x in arg.split(","))
        write_snapshot(folder / "snapshot", replicate(synergy_works(), works), dates, parts)
    elif name == "floor":
        import gzip

        with gzip.open(arg, "rb") as stream:
            for line in stream:
                json.loads(line)
    elif name == "part":
        from bib2graph.skips import Skips
        from bib2graph.sources.snapshot import read_partition

        out = folder / "results/snapshot" / Path(arg).parent.name.split("=", 1)[1] / Path(arg).stem
        read_partition(arg, arg, {}, Skips(), out)
    elif name == "gather":
        from bib2graph.sources.snapshot import gather
        from bib2graph.tables import BUNDLE_TABLES, ORIGINS, SOURCE_REFS, write_table

        parts = sorted(p for p in (folder / "results/snapshot").glob("*/*") if p.is_dir())
        schemas = {**BUNDLE_TABLES, "cited": SOURCE_REFS, "origins": ORIGINS}
        gather([(f"{p.parent.name}.{p.name}", p) for p in parts],
               lambda name, table: write_table(table, schemas[name], folder / f"results/sources/{name}.parquet"))
    elif name == "universe":
        from bib2graph.sources.universe import FileUniverse
        from bib2graph.tables import SOURCE_REFS, Bundle, read_table

        universe = FileUniverse(Bundle.read(folder / "results/sources"),
                                read_table(folder / "results/sources/cited.parquet", SOURCE_REFS))
        assert universe.all_ids()
    return {"stage": name, "seconds": time.perf_counter() - start, "peak_mb": _peak_mb()}


def child(name: str, folder: Path, arg: str = "") -> dict:
    proc = subprocess.run([sys.executable, __file__, "--stage", name, "--folder", str(folder), "--arg", arg],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--works", type=int, default=200_000)
    parser.add_argument("--dates", type=int, default=4)
    parser.add_argument("--parts", type=int, default=2)
    parser.add_argument("--stage")
    parser.add_argument("--folder", type=Path)
    parser.add_argument("--arg", default="")
    args = parser.parse_args()
    if args.stage:
        print(json.dumps(stage(args.stage, args.folder, args.arg)))
        return
    with tempfile.TemporaryDirectory(prefix="b2g-bench-snapshot-") as tmp:
        folder = Path(tmp)
        built = child("build", folder, f"{args.works},{args.dates},{args.parts}")
        files = sorted((folder / "snapshot").glob("data/works/*/part_*.gz"))
        size = sum(p.stat().st_size for p in files)
        print(f"snapshot: {args.works} works, {len(files)} partitions, {size / 2**20:.0f} MiB gzipped, "
              f"built in {built['seconds']:.1f} s")
        largest = max(files, key=lambda p: p.stat().st_size)
        floor = min((child("floor", folder, str(largest)) for _ in range(2)), key=lambda r: r["seconds"])
        parts = [child("part", folder, str(p)) for p in files]
        slowest = max(parts, key=lambda r: r["seconds"])
        rows = [("floor: gzip + json.loads, largest partition", floor),
                ("snapshot_part, largest partition", next(r for r, p in zip(parts, files) if p == largest)),
                ("snapshot_part, slowest", slowest),
                ("snapshot_part, all (one core)", {"seconds": sum(r["seconds"] for r in parts),
                                                   "peak_mb": max(r["peak_mb"] for r in parts)}),
                ("sources (gather)", child("gather", folder)),
                ("universe (seed, chain)", child("universe", folder))]
        for label, row in rows:
            print(f"{label:<46} {row['seconds']:8.1f} s {row['peak_mb']:8.0f} MB peak")
        largest_part = rows[1][1]["seconds"]
        print(f"snapshot_part / floor on the largest partition: {largest_part / floor['seconds']:.1f}×")


if __name__ == "__main__":
    main()
