"""Reading a large Web of Science plain-text export (100,000 records by default).

The export is built in a temporary folder by repeating the real records of ../shared/data/wos/*.txt
(the plain-text ones) between an FN/VR header and EF, as WoS writes it, with new accession numbers (UT)
and new DOIs, so that every record is a distinct work, and half of each copy's cited references made into
works only it cites (`--distinct`). It prints, each from its own child process (so that the memory is
the reader's own): the time and peak resident memory of `read_wos` turning every
record into a `Record`, and, measured in the same run on the same file, of a bare
`for line in open(...)` loop over it (the floor of any line reader; best of two). The reader must read
every record and cited reference and stay within 1 GiB (exit status 1 otherwise).

`--sources` also imports the file as a user does: a workspace whose source is the export, every work a
seed, `b2g run corpus --cores 2`. It prints the peak resident memory of every process of that run (b2g,
Snakemake, each job; benchmarks/process_peaks.py) and each job's own peak from its log; every process must
stay within 1 GiB too.

    python benchmarks/bench_readers.py                    # 100,000 records
    python benchmarks/bench_readers.py --records 10000 --sources
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

SHARED_WOS = Path(__file__).resolve().parents[2] / "shared" / "data" / "wos"
MEMORY_LIMIT_MB = 1024
_UT_OR_DOI = re.compile(r"^(UT|DI) ")
_DOI = re.compile(r",\s*DOI\s.*$")
_WORD = re.compile(r"^\S+?(?=[\s,]|$)")
#: the share of a copy's cited references that no other record cites
DISTINCT = 0.5


def source_blocks() -> list[list[str]]:
    """The PT…ER blocks (lines without ends) of every real plain-text export, in file order."""
    from bib2graph.sources.exports.detect import detect_format
    from bib2graph.textio import read_text

    blocks: list[list[str]] = []
    for path in sorted(SHARED_WOS.glob("*.txt")):
        if detect_format(path) != "wos":
            continue   # a tab-delimited export
        text = read_text(path)
        current: list[str] | None = None
        for line in text.splitlines():
            if line.startswith("PT "):
                current = [line]
            elif current is not None:
                current.append(line)
                if line.rstrip() == "ER":
                    blocks.append(current)
                    current = None
    if not blocks:
        sys.exit(f"no plain-text WoS export in {SHARED_WOS}")
    return blocks


def build_export(path: Path, n_records: int, distinct: float = DISTINCT) -> tuple[int, int]:
    """Write an n-record export; (records, cited-reference lines) written, counted while writing. Past the
    first copy of the real records, a share `distinct` of each copy's cited references name works no other
    record cites (their first author's name takes a suffix of the record's, the DOI is dropped): a field's
    export cites a long tail of works once, and repeated records alone would cite a few thousand works."""
    blocks = source_blocks()
    cited = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("\ufeffFN Clarivate Analytics Web of Science\nVR 1.0\n")
        for i in range(n_records):
            block = blocks[i % len(blocks)]
            in_cr = False
            for j, line in enumerate(block):
                if _UT_OR_DOI.match(line) or line.rstrip() == "ER":
                    continue
                in_cr = line.startswith("CR ") or (in_cr and line.startswith("   "))
                cited += in_cr
                if in_cr and i >= len(blocks) and (i * 7919 + j * 104729) % 1000 < distinct * 1000:
                    line = line[:3] + _once(line[3:], i)
                out.write(line + "\n")
            out.write(f"DI 10.99999/b2g-bench.{i + 1}\nUT WOS:{900000000000000 + i + 1:015d}\nER\n\n")
        out.write("EF\n")
    return n_records, cited


def _once(reference: str, record: int) -> str:
    """A cited reference made into one only `record` cites: its first word takes the record's letters."""
    letters, n = "", record
    while n:
        n, r = divmod(n, 26)
        letters += "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[r]
    return _WORD.sub(lambda m: m.group(0) + letters, _DOI.sub("", reference), count=1)


def child(mode: str, path: Path) -> dict:
    """Read the file in this process: with read_wos, or with a bare line loop."""
    start = time.perf_counter()
    if mode == "reader":
        from bib2graph.skips import Skips
        from bib2graph.sources.exports.wos import read_wos

        skips = Skips()
        records = references = 0
        for record in read_wos(path, path.name, skips):
            records += 1
            references += len(record.references)
        out = {"records": records, "references": references, "skips": len(skips)}
    elif mode == "sources":   # the whole sources job: read, merge, parse and resolve every reference, write
        import pyarrow as pa
        from bib2graph.sources.ingest import SCHEMAS, import_files, table_writer

        pa.set_memory_pool(pa.system_memory_pool())   # Arrow on malloc, as the job runs it (phases.run_sources)
        with tempfile.TemporaryDirectory(prefix="b2g-bench-sources-") as tmp:
            write = table_writer({name: Path(tmp) / f"{name}.parquet" for name in SCHEMAS})
            counts = import_files([path], [path.name], ["wos"], write=write, scratch=Path(tmp))
        out = {"records": counts["records"], "references": counts["references"]["total"], "skips": 0}
    else:
        lines = 0
        with open(path, encoding="utf-8-sig") as stream:
            for _ in stream:
                lines += 1
        out = {"lines": lines}
    out["seconds"] = time.perf_counter() - start
    out["peak_mb"] = peak_mb()
    return out


def peak_mb() -> float:
    """This process's peak resident memory. Linux's VmHWM is the process's own; ru_maxrss (elsewhere)
    can include the parent's, as a child inherits it across fork and exec."""
    try:
        status = Path("/proc/self/status").read_text()
        return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M).group(1)) / 1024
    except (OSError, AttributeError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def import_run(path: Path, scratch: Path) -> tuple[float, list, float, list[tuple[str, float, float]]]:
    """`b2g run corpus` on the export, watched: (seconds, every process's peak, the exact largest peak,
    each job's seconds and own peak from its log)."""
    import yaml
    from bench_snapshot_workflow import jobs_table
    from process_peaks import run_watched

    ws = scratch / "workspace"
    subprocess.run([sys.executable, "-m", "bib2graph", "init", str(ws), "--json"], check=True, capture_output=True)
    spec = {"name": "bench-readers", "source": {"kind": "files", "files": [str(path)]}, "seed": {"all": True},
            "chain": {"direction": "none"}, "networks": {"citation": {}}}
    (ws / "config/research.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    start = time.perf_counter()
    code, peaks, exact = run_watched([sys.executable, "-m", "bib2graph", "run", "corpus", "--cores", "2",
                                      "--workspace", str(ws), "--json"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    if code:
        sys.exit(f"b2g run corpus failed (exit {code}); see {ws}/.snakemake/log")
    return seconds, peaks, exact, jobs_table(ws)


def role(command: str) -> str:
    """What a process of the run is, from its command line."""
    if "-m bib2graph" in command or command.endswith("/b2g"):
        return "b2g run (its own process)"
    if "-m snakemake" in command:
        return "Snakemake (scheduler)"
    if ".phase.py" in command:
        return "a job (Snakemake script)"
    return command[:60]


def run_child(mode: str, path: Path) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", mode, str(path)], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{mode} failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--distinct", type=float, default=DISTINCT,
                        help="share of each copied record's cited references that no other record cites")
    parser.add_argument("--sources", action="store_true",
                        help="also time the sources job (ingest: merge and reference resolution) on the file")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]))))
        return 0
    with tempfile.TemporaryDirectory(prefix="b2g-bench-readers-") as tmp:
        path = Path(tmp) / "savedrecs.txt"
        start = time.perf_counter()
        n_records, n_cited = build_export(path, args.records, args.distinct)
        size_mb = path.stat().st_size / 2**20
        print(f"export: {n_records} records, {n_cited} cited references, {size_mb:.0f} MB "
              f"(built in {time.perf_counter() - start:.0f} s)", flush=True)
        bare = min((run_child("bare", path) for _ in range(2)), key=lambda r: r["seconds"])
        ours = run_child("reader", path)
        job = run_child("sources", path) if args.sources else None
        watched = import_run(path, Path(tmp)) if args.sources else None
    print(f"{'what':<30}{'seconds':>9}{'records/s':>11}{'MB/s':>8}{'peak MB':>9}{'ratio':>8}")
    rows = [("read_wos (bib2graph)", ours), ("bare line loop", bare)]
    rows += [("sources job (read+merge+refs)", job)] if job else []
    for label, r in rows:
        print(f"{label:<30}{r['seconds']:>9.2f}{n_records / r['seconds']:>11.0f}{size_mb / r['seconds']:>8.0f}"
              f"{r['peak_mb']:>9.0f}{ours['seconds'] / r['seconds']:>8.2f}")
    print("ratio: read_wos time / this row's time")
    complete = ours["records"] == n_records and ours["references"] == n_cited and not ours["skips"]
    print(f"records read: {ours['records']} of {n_records}; cited references: {ours['references']} of "
          f"{n_cited}; skipped: {ours['skips']}")
    print(f"peak memory of the reader: {ours['peak_mb']:.0f} MB (limit {MEMORY_LIMIT_MB} MB)")
    within = complete and ours["peak_mb"] <= MEMORY_LIMIT_MB
    if watched:
        within = show_import_run(*watched) and within
    return 0 if within else 1


def show_import_run(seconds: float, peaks: list, exact: float, jobs: list[tuple[str, float, float]]) -> bool:
    """Print every process's peak; True when all are within the limit."""
    print(f"\nb2g run corpus on the export: {seconds:.0f} s; the peak of every process of the run (MiB):")
    for p in peaks:
        flag = "  ABOVE 1 GiB" if p.peak_mb > MEMORY_LIMIT_MB else ""
        print(f"{p.peak_mb:>8.0f}  pid {p.pid:<7} {role(p.command)}{flag}")
    print("each job's own peak, from its log: " + "; ".join(f"{job} {s:.1f} s, {mb:.0f} MB" for job, s, mb in jobs))
    largest = max((p.peak_mb for p in peaks), default=0.0)
    if exact > largest + 1:
        print(f"(a process the polling missed peaked at {exact:.0f} MiB: getrusage's largest)")
    return max(largest, exact) <= MEMORY_LIMIT_MB


if __name__ == "__main__":
    sys.exit(main())
