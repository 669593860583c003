"""Reading a large Web of Science plain-text export (100,000 records by default).

The export is built in a temporary folder by repeating the real records of ../shared/data/wos/*.txt
(the plain-text ones) with new accession numbers (UT) and new DOIs, so that every record is a distinct
work, between an FN/VR header and EF, as WoS writes it. It prints, each from its own child process (so
that the memory is the reader's own): the time and peak resident memory of `read_wos` turning every
record into a `Record`, and, measured in the same run on the same file, of a bare
`for line in open(...)` loop over it (the floor of any line reader; best of two). The reader must read
every record and cited reference and stay within 1 GiB (exit status 1 otherwise).

    python benchmarks/bench_readers.py                    # 100,000 records
    python benchmarks/bench_readers.py --records 10000
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


def build_export(path: Path, n_records: int) -> tuple[int, int]:
    """Write an n-record export; (records, cited-reference lines) written, counted while writing."""
    blocks = source_blocks()
    cited = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("\ufeffFN Clarivate Analytics Web of Science\nVR 1.0\n")
        for i in range(n_records):
            block = blocks[i % len(blocks)]
            in_cr = False
            for line in block:
                if _UT_OR_DOI.match(line) or line.rstrip() == "ER":
                    continue
                in_cr = line.startswith("CR ") or (in_cr and line.startswith("   "))
                cited += in_cr
                out.write(line + "\n")
            out.write(f"DI 10.99999/b2g-bench.{i + 1}\nUT WOS:{900000000000000 + i + 1:015d}\nER\n\n")
        out.write("EF\n")
    return n_records, cited


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
    elif mode == "sources":   # the whole sources job: read, merge, parse and resolve every reference
        from bib2graph.sources.ingest import ingest

        found = ingest([path], [path.name], ["wos"])
        out = {"records": found.counts["records"], "references": found.counts["references"]["total"], "skips": 0}
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


def run_child(mode: str, path: Path) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", mode, str(path)], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{mode} failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
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
        n_records, n_cited = build_export(path, args.records)
        size_mb = path.stat().st_size / 2**20
        print(f"export: {n_records} records, {n_cited} cited references, {size_mb:.0f} MB "
              f"(built in {time.perf_counter() - start:.0f} s)", flush=True)
        bare = min((run_child("bare", path) for _ in range(2)), key=lambda r: r["seconds"])
        ours = run_child("reader", path)
        job = run_child("sources", path) if args.sources else None
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
    return 0 if complete and ours["peak_mb"] <= MEMORY_LIMIT_MB else 1


if __name__ == "__main__":
    sys.exit(main())
