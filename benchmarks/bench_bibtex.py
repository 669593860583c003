"""Reading a Web of Science BibTeX export: LaTeX decoding by the plain path and by pylatexenc alone,
measured in the same run on the same file.

The export is built in a temporary folder from the real records of ../shared/data/wos/*.txt (the plain-text
ones), written as Web of Science writes BibTeX: `Author`, `Title`, `Journal`, `Year`, `Pages` with "--",
`Abstract`, `DOI`, `Unique-ID` and one `Cited-References` line a reference, "&", "%" and "_" escaped and
"[" "]" written "{[}" "{]}"; the records are repeated with new IDs up to `--records`. Each row runs in its
own process and prints its seconds and peak memory (ru_maxrss): `split` (the floor: bibtexparser's
`parse_string`, no decoding), `plain` (`read_bibtex` as bib2graph reads: latex.py's plain path, pylatexenc
for the rest) and `pylatexenc` (`read_bibtex` with every value through pylatexenc, as before). `×split` is
a row's seconds over the floor's; the run fails unless both readers give the same records.

    python benchmarks/bench_bibtex.py                  # 20,000 records
    python benchmarks/bench_bibtex.py --records 2000
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
SHARED = ROOT.parent / "shared" / "data" / "wos"
ROWS = ["split", "plain", "pylatexenc"]


def wos_records() -> list[dict[str, list[str]]]:
    """Every record of the shared plain-text exports: tag → its lines."""
    records = []
    for path in sorted(SHARED.glob("*.txt")):
        text = path.read_bytes().decode("utf-8-sig", errors="replace")
        if not text.startswith("FN "):       # the tab-delimited ones (one in UTF-16)
            continue
        for chunk in text.split("\nER\n")[:-1]:
            record: dict[str, list[str]] = {}
            tag = None
            for line in chunk.splitlines():
                if line[:2].strip() and line[2:3] == " ":
                    tag = line[:2]
                    record.setdefault(tag, []).append(line[3:].strip())
                elif line.startswith("   ") and tag:
                    record[tag].append(line.strip())
            records.append(record)
    return records


def escaped(text: str) -> str:
    """As Web of Science escapes a BibTeX value."""
    text = re.sub(r"([&%_#])", r"\\\1", text)
    return text.replace("[", "{[}").replace("]", "{]}")


def entry(record: dict[str, list[str]], n: int) -> str:
    one = lambda tag, sep=" ": escaped(sep.join(record.get(tag, [])))  # noqa: E731
    pages = "--".join(p for p in (one("BP"), one("EP")) if p)
    fields = [("Author", one("AU", " and ")), ("Title", "{" + one("TI") + "}"), ("Journal", "{" + one("SO") + "}"),
              ("Year", "{" + one("PY") + "}"), ("Pages", pages), ("Abstract", "{" + one("AB") + "}"),
              ("DOI", "{" + f"10.9999/bench.{n}" + "}"), ("Unique-ID", "{" + f"WOS:{n:015d}" + "}"),
              ("Cited-References", "\n   ".join(escaped(r) for r in record.get("CR", [])))]
    body = ",\n".join(f"{name} = {{{value}}}" for name, value in fields if value.strip("{}"))
    return f"@article{{ WOS:{n:015d},\n{body},\n}}\n"


def make(folder: Path, records: int) -> Path:
    real = [r for r in wos_records() if r.get("CR")]
    path = folder / "savedrecs.bib"
    with path.open("w", encoding="utf-8") as out:
        for n in range(records):
            out.write(entry(real[n % len(real)], n) + "\n")
    return path


def child(row: str, path: str) -> None:
    from bib2graph.skips import Skips
    from bib2graph.sources.exports import latex
    from bib2graph.sources.exports.bibtex import read_bibtex

    text = Path(path).read_text(encoding="utf-8")
    start = time.perf_counter()
    if row == "split":
        import bibtexparser

        count = len(bibtexparser.parse_string(text, parse_stack=[]).entries)
        digest = ""
    else:
        if row == "pylatexenc":
            latex._plain = lambda value: None
        found = [(r.title, r.authors[0].name if r.authors else None, [c.raw for c in r.references])
                 for r in read_bibtex(Path(path), "savedrecs.bib", Skips())]
        count = len(found)
        digest = hashlib.sha256(json.dumps(found, ensure_ascii=False).encode()).hexdigest()
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"row": row, "seconds": seconds, "peak_mb": peak, "records": count, "digest": digest}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0
    with tempfile.TemporaryDirectory(prefix="bench_bibtex-") as tmp:
        path = make(Path(tmp), args.records)
        print(f"{args.records:,} records, {path.stat().st_size / 1e6:.1f} MB", flush=True)
        rows = {}
        for row in ROWS:
            done = subprocess.run([sys.executable, __file__, "--child", row, str(path)], capture_output=True, text=True)
            if done.returncode:
                print(done.stderr[-3000:], file=sys.stderr)
                return 1
            rows[row] = json.loads(done.stdout.strip().splitlines()[-1])
        floor = rows["split"]["seconds"]
        for row in ROWS:
            r = rows[row]
            print(f"  {row:<11} {r['seconds']:8.2f} s {r['peak_mb']:8.0f} MB  ×split {r['seconds'] / floor:6.2f}"
                  f"  {r['records']:,} records", flush=True)
        same = rows["plain"]["digest"] == rows["pylatexenc"]["digest"]
        ratio = rows["plain"]["seconds"] / rows["pylatexenc"]["seconds"]
        print(f"  plain / pylatexenc: {ratio:.2f}; same records: {same}")
        return 0 if same and rows["plain"]["records"] == args.records else 1


if __name__ == "__main__":
    sys.exit(main())
