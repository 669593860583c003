"""The OpenAlex snapshot source through the real workflow at scale (issue 12, acceptance 3 and 4).

A synthetic snapshot in OpenAlex's layout (tests/snapshot_builder.py: the real SYNERGY works of
../shared/data, replicated with new IDs and citations, streamed into dated partitions with a manifest)
is run through `b2g run networks` (every work a seed, no chaining: the snapshot is the corpus), with the
citation and co-citation networks at the thresholds printed below. Per job: its seconds and its peak
resident memory (VmHWM), from the line each job logs when done (results/logs/).

    --compare   the same partitions as a files source (`source.kind: files`, the .gz files linked as
                .jsonl.gz) must give byte-identical seeds, candidates, screening, corpus and networks
                (asserted); then one new dated partition is added and the rerun must run only its
                `snapshot_part` job of all the partitions, plus the gather and what follows (asserted).

    python benchmarks/bench_snapshot_workflow.py --works 200000 --compare      # acceptance 3
    python benchmarks/bench_snapshot_workflow.py --works 1000000 --parts 10 --network-cores 1   # acceptance 4

    --keep DIR --reuse   run again in DIR on the snapshot built there (after a fix: no rebuild, and the
                         workflow reruns only what is missing or out of date)

Every figure comes from this run; nothing is compared with a fixed time.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

KINDS = ("citation", "cocitation")
NETWORKS = {"citation": {}, "cocitation": {"min_weight": 2, "min_occurrences": 5, "normalization": "raw"}}
COMPARED = ["results/seed/seeds.parquet", "results/chain/candidates.parquet", "results/corpus/screening.parquet",
            *[f"results/corpus/{name}.parquet" for name in ("works", "authorships", "affiliations", "references",
                                                           "terms")],
            *[f"results/networks/{kind}/{name}.parquet" for kind in KINDS for name in ("nodes", "edges")]]


def spec(source: dict) -> dict:
    """Every work a seed, no chaining, two networks; the costly extras (stability reruns, betweenness,
    eigenvector) off: they are the network phase's own benchmark (bench_networks.py)."""
    return {"name": "snapshot at scale", "source": source, "seed": {"all": True}, "chain": {"direction": "none"},
            "networks": NETWORKS, "communities": {"stability_runs": 1},
            "metrics": {"betweenness": {"enabled": False}, "eigenvector": {"enabled": False}}}


def workspace(root: Path, source: dict) -> Path:
    (root / "config").mkdir(parents=True, exist_ok=True)
    (root / "config/research.yaml").write_text(yaml.safe_dump(spec(source), sort_keys=False), encoding="utf-8")
    return root


def run(root: Path, cores: int, phase: str = "networks", until: str | None = None) -> tuple[float, set[str]]:
    """`b2g run <phase>` in `root` (Snakemake's `--until` rule when given): its seconds and the jobs
    Snakemake ran; each job's line is printed as it ends (an error stops the benchmark)."""
    from tests.integration.helpers import ran_jobs

    env = {k: v for k, v in os.environ.items() if not k.startswith("B2G_")}
    cmd = [sys.executable, "-m", "bib2graph", "run", phase, "--cores", str(cores), "--json", "--workspace", str(root)]
    start, shown = time.perf_counter(), set(done_lines(root))
    with tempfile.TemporaryFile("w+") as err, tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(cmd + (["--until", until] if until else []), stdout=out, stderr=err, env=env,
                                stdin=subprocess.DEVNULL, text=True)
        while proc.poll() is None:
            time.sleep(5)   # a progress report, not synchronisation: the job lines of a long run as they come
            for job, line in done_lines(root).items():
                if job not in shown:
                    shown.add(job)
                    print(f"  [{time.perf_counter() - start:6.0f} s] {line}", flush=True)
        err.seek(0)
        out.seek(0)
        stderr, stdout = err.read(), out.read()
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        print(stderr[-6000:], file=sys.stderr)
        print(stdout[-3000:], file=sys.stderr)
        raise SystemExit(f"b2g run {phase} failed in {root} (exit {proc.returncode}) after {seconds:.0f} s")
    return seconds, ran_jobs(stderr)


def done_lines(root: Path) -> dict[str, str]:
    """Job → its log's "done in … s, peak memory … MB" line, for the jobs that logged one."""
    found = {}
    for path in sorted((root / "results/logs").glob("*.log")) if (root / "results/logs").is_dir() else []:
        done = re.search(r"(\S+) done in [\d.]+ s, peak memory [\d.]+ MB", path.read_text(errors="replace"))
        if done:
            found[done.group(1)] = done.group(0)
    return found


def jobs_table(root: Path) -> list[tuple[str, float, float]]:
    """(job, seconds, peak MB) of each job, in the order the DAG runs them: from the job's own log line
    (its VmHWM, exact), else from Snakemake's benchmark file (max_rss sampled every 30 s)."""
    order = ["snapshot_part", "sources", "seed", "chain", "corpus", "cited", "network", "layout"]
    found = {}
    for path in sorted((root / "results/benchmarks").glob("*.tsv")):
        with path.open() as stream:
            row = next(csv.DictReader(stream, delimiter="\t"))
        rss = row.get("max_rss", "NA")
        found[path.stem] = (float(row["s"]), float(rss) if rss not in ("NA", "-") else float("nan"))
    for path in sorted((root / "results/logs").glob("*.log")):
        done = re.search(r"(\S+) done in ([\d.]+) s, peak memory ([\d.]+) MB", path.read_text(errors="replace"))
        if done:
            found[done.group(1)] = (float(done.group(2)), float(done.group(3)))
    rows = [(job, seconds, mb) for job, (seconds, mb) in found.items()]
    return sorted(rows, key=lambda r: (next((i for i, o in enumerate(order) if r[0].startswith(o)), 99), r[0]))


def print_jobs(title: str, rows: list[tuple[str, float, float]], floors: dict[str, float] | None = None) -> None:
    """Each job's seconds and peak, and with `floors` (job → seconds, `job_floors`) its floor and the
    ratio; the partition jobs as their slowest and their sum, beside the sum of their floors."""
    floors = floors or {}
    print(f"\n{title}")
    print(f"  {'job':<40} {'seconds':>10} {'peak MB':>11} {'floor s':>9} {'×floor':>7}")

    def floor(job: str, seconds: float) -> str:
        return f"{floors[job]:9.1f} {seconds / max(floors[job], 1e-9):7.2f}" if job in floors else ""

    parts = [r for r in rows if r[0].startswith("snapshot_part")]
    for job, seconds, mb in rows:
        if not job.startswith("snapshot_part"):
            print(f"  {job:<40} {seconds:8.1f} s {mb:8.0f} MB {floor(job, seconds)}")
    if parts:
        slowest = max(parts, key=lambda p: p[1])
        print(f"  {'snapshot_part, ' + str(len(parts)) + ' jobs: slowest':<40} {slowest[1]:8.1f} s "
              f"{max(p[2] for p in parts):8.0f} MB {floor(slowest[0], slowest[1])}")
        total = sum(p[1] for p in parts)
        measured = [p[0] for p in parts if p[0] in floors]
        both = (f"{sum(floors[j] for j in measured):9.1f} "
                f"{sum(p[1] for p in parts if p[0] in floors) / max(sum(floors[j] for j in measured), 1e-9):7.2f}"
                if len(measured) == len(parts) else "")
        print(f"  {'snapshot_part, all (sum: one core)':<40} {total:8.1f} s {'':>11} {both}")


FLOORS_TEXT = """Floors, measured in this process after the run on the same files:
  snapshot_part  a bare read of its partition: gzip.open and orjson.loads of every line
  network.<kind> the bare calls its work needs (bench_networks.network_floors): the sparse product of its
                 counting (co-citation), one igraph Leiden call, PRPACK PageRank, a pyarrow write of its edges
  other jobs     a bare copy of their outputs: each Parquet table read and written by pyarrow, other files
                 read and written as bytes"""


def job_floors(root: Path, jobs: list[str], snapshot: Path) -> dict[str, float]:
    """Each job's floor in seconds (FLOORS_TEXT), for the jobs the run logged."""
    from bib2graph.registry import RULES
    from bib2graph.sources.snapshot_layout import partition_file

    found = {}
    for job in jobs:
        rule, _, wildcard = job.partition(".")
        if rule == "snapshot_part":
            found[job] = _read_floor(snapshot / partition_file(wildcard, snapshot))
        elif rule == "network":
            found[job] = sum(_network_floors(root, wildcard).values())
        elif rule in RULES and not RULES[rule].wildcard:
            outputs = RULES[rule].outputs({})
            paths = [root / p for value in outputs.values() for p in ([value] if isinstance(value, str) else value)]
            found[job] = _copy_floor([p for p in paths if p.is_file()])
    return found


def _read_floor(path: Path) -> float:
    import gzip

    import orjson

    start = time.perf_counter()
    with gzip.open(path, "rb") as stream:
        for line in stream:
            orjson.loads(line)
    return time.perf_counter() - start


def _copy_floor(paths: list[Path]) -> float:
    import pyarrow.parquet as pq

    seconds = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for k, path in enumerate(paths):
            start = time.perf_counter()
            if path.suffix == ".parquet":
                pq.write_table(pq.read_table(path), f"{tmp}/{k}.parquet")
            else:
                Path(f"{tmp}/{k}").write_bytes(path.read_bytes())
            seconds += time.perf_counter() - start
    return seconds


def _network_floors(root: Path, kind: str) -> dict[str, float]:
    from benchmarks.bench_networks import network_floors
    from bib2graph.networks import Network
    from bib2graph.networks.schema import EDGES, NODES
    from bib2graph.tables import read_table

    folder = root / "results/networks" / kind
    metrics = json.loads((folder / "graph/metrics.json").read_text(encoding="utf-8"))
    net = Network(kind=kind, directed=bool(metrics["directed"]), nodes=read_table(folder / "graph/nodes.parquet", NODES),
                  edges=read_table(folder / "edges.parquet", EDGES), evidence=None, metrics=metrics)
    return network_floors(root / "results/corpus/references.parquet", net,
                          NETWORKS[kind].get("min_occurrences", 1), repeats=1)


def build(folder: Path, works: int, dates: int, parts: int) -> tuple[list, float]:
    from tests.snapshot_builder import replicas, synergy_works, write_stream

    start = time.perf_counter()
    originals = synergy_works()
    files = write_stream(folder, replicas(originals, works), works, dates, parts)
    return originals, time.perf_counter() - start


def reuse(folder: Path) -> tuple[list, float]:
    """The snapshot an earlier run built in `folder` (a failed job is fixed and rerun without the 12
    minutes a million works take to build); its manifest must be there."""
    from tests.snapshot_builder import synergy_works

    if not (folder / "data/works/manifest").is_file():
        raise SystemExit(f"--reuse: no snapshot manifest in {folder}; run once without --reuse")
    return synergy_works(), 0.0


def compare(files_root: Path, snap_root: Path) -> None:
    for name in COMPARED:
        a, b = (files_root / name).read_bytes(), (snap_root / name).read_bytes()
        assert a == b, f"{name} differs between the files and the snapshot source"
    print(f"\nequal byte for byte (files source vs snapshot source): {len(COMPARED)} artifacts")


def add_partition(folder: Path, originals: list, works: int) -> str:
    """One new dated partition: 1,000 new works and 100 works of the first partition updated again."""
    import gzip
    import json

    from bib2graph.sources.snapshot_layout import partitions
    from tests.snapshot_builder import _next_day, replicas, write_manifest, write_partition

    keys = partitions(folder)
    date = _next_day(keys[-1].split(".")[0])
    with gzip.open(folder / "data/works" / f"updated_date={keys[0].split('.')[0]}/part_000.gz", "rb") as stream:
        again = [dict(json.loads(line), updated_date=f"{date}T00:00:00", cited_by_count=10_000 + i)
                 for i, line in zip(range(100), stream)]
    new = [w for i, w in enumerate(replicas(originals, works + 1000)) if i >= works]
    write_partition(folder, date, 0, again + new, level=1)
    write_manifest(folder)
    return f"{date}.part_000"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--works", type=int, default=200_000)
    parser.add_argument("--dates", type=int, default=4)
    parser.add_argument("--parts", type=int, default=3)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--network-cores", type=int, help="cores after the corpus (default: --cores); 1 runs "
                        "the large jobs one at a time, so the run's peak memory is its largest job's")
    parser.add_argument("--compare", action="store_true", help="also run a files source and assert equality")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary one)")
    parser.add_argument("--reuse", action="store_true", help="reuse the snapshot a run with the same --keep "
                        "built (no build; the workflow reruns only what is missing or out of date)")
    args = parser.parse_args()
    if args.reuse and not args.keep:
        parser.error("--reuse needs --keep (the folder of the run whose snapshot it reuses)")
    args.network_cores = args.network_cores or args.cores
    with tempfile.TemporaryDirectory(prefix="b2g-bench-snapwf-") as tmp:
        top = args.keep or Path(tmp)
        snap_root = workspace(top / "snapshot-review", {"kind": "snapshot", "snapshot": {"path": "snapshot"}})
        originals, built = reuse(snap_root / "snapshot") if args.reuse else build(snap_root / "snapshot", args.works,
                                                                                  args.dates, args.parts)
        gz = sorted((snap_root / "snapshot").glob("data/works/*/part_*.gz"))
        print(f"snapshot: {args.works} works, {len(gz)} partitions ({args.dates} dates x {args.parts}), "
              f"{sum(p.stat().st_size for p in gz) / 2**20:.0f} MiB gzipped, "
              f"{'reused' if args.reuse else f'built in {built:.0f} s'}")
        print(f"networks: {yaml.safe_dump(NETWORKS, default_flow_style=True).strip()}; every work a seed, "
              f"no chaining; stability_runs 1, betweenness and eigenvector off; --cores {args.cores}")
        if args.network_cores == args.cores:
            seconds, _ = run(snap_root, args.cores, until="network")
            print(f"\nsnapshot source, `b2g run networks --cores {args.cores} --until network`: {seconds:.0f} s wall")
        else:   # the partitions in parallel, then the large jobs one at a time (peak = the largest job's)
            seconds, _ = run(snap_root, args.cores, "corpus")
            later, _ = run(snap_root, args.network_cores, until="network")
            print(f"\nsnapshot source: `b2g run corpus --cores {args.cores}` {seconds:.0f} s wall, then "
                  f"`b2g run networks --cores {args.network_cores} --until network` {later:.0f} s wall")
        rows = jobs_table(snap_root)
        print_jobs("snapshot source, per job:", rows,
                   job_floors(snap_root, [r[0] for r in rows], snap_root / "snapshot"))
        print(FLOORS_TEXT)
        if not args.compare:
            return
        files_root = top / "files-review"
        (files_root / "files").mkdir(parents=True, exist_ok=True)
        names = []
        for i, path in enumerate(gz):
            os.link(path, files_root / "files" / f"part_{i:03d}.jsonl.gz")
            names.append(f"files/part_{i:03d}.jsonl.gz")
        workspace(files_root, {"kind": "files", "files": names})
        seconds, _ = run(files_root, args.cores, until="network")
        print(f"\nfiles source, `b2g run networks --until network`: {seconds:.0f} s wall")
        print_jobs("files source, per job:", jobs_table(files_root))
        compare(files_root, snap_root)
        key = add_partition(snap_root / "snapshot", originals, args.works)
        seconds, ran = run(snap_root, args.cores, "corpus")
        reran = {job for job in ran if job.startswith("snapshot_part:")}
        assert reran == {f"snapshot_part:{key}"}, f"partition jobs rerun: {sorted(reran)}"
        assert {"sources", "seed", "chain", "corpus"} <= ran, sorted(ran)
        print(f"\nnew partition {key} (1,000 new works, 100 updated): `b2g run corpus` {seconds:.0f} s wall; "
              f"jobs run: {', '.join(sorted(ran))}")


if __name__ == "__main__":
    main()
