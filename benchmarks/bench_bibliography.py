"""The corpus bibliography (BibTeX, RIS and CSL-JSON of every included work, as the corpus job writes it):
the per-entry writers against the column-wise ones, measured in the same run, with the bytes compared.

The tables are real: the SYNERGY works of ../shared/data (tests/snapshot_builder.py) as bundle tables,
copied with new IDs, DOIs and titles up to `--works` works. Each copy's author names are made distinct
too (the copy number after the name's first letter, so particles, suffixes and commas keep their
places): a real corpus has few repeated names within a chunk, and the column-wise writers format each
distinct name once, so shared names would flatter them. The two Parquet files (works, authorships)
are written as the corpus job writes them (key-sorted, zstd).

Each row runs in its own process and prints its seconds and peak memory (ru_maxrss): `read` (the floor:
the columns the bibliography uses read from both files, batch by batch), `old` (the per-entry writers:
`write_bibliography_chunks(table_entry_chunks(…))`), `new` (`write_corpus_bibliography`, the corpus
job's). `×new` is a row's seconds over the new row's; `same` says whether the row's three files equal
the old row's byte for byte (the run fails when they do not).

    python benchmarks/bench_bibliography.py                  # 200,000 works
    python benchmarks/bench_bibliography.py --works 1000000 --rows read new
"""

from __future__ import annotations

import argparse
import hashlib
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

ROWS = ["read", "old", "new"]
NAMES = ["bibliography.bib", "bibliography.ris", "bibliography.csl.json"]
#: every copy's IDs have one length (W + 13 digits), so a copy's sorted IDs follow the previous copy's
FIRST_ID = 1_000_000_000_000


def make_tables(folder: Path, n_works: int) -> dict:
    """works.parquet and authorships.parquet of `n_works` copies of the real works, one copy at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bib2graph.sources.records import bundle_from_works
    from bib2graph.tables import AUTHORSHIPS, WORKS, conform
    from tests.snapshot_builder import synergy_works

    real = bundle_from_works(synergy_works())
    works = real.works.sort_values("work_id", kind="mergesort").reset_index(drop=True)
    number = {wid: i for i, wid in enumerate(works["work_id"])}
    authorships = real.authorships[real.authorships["work_id"].isin(number)]
    writers: dict[str, pq.ParquetWriter] = {}
    made = rows = 0
    copy_no = 0
    while made < n_works:
        copy_no += 1
        take = min(len(works), n_works - made)
        ids = {wid: f"W{FIRST_ID + copy_no * 10_000 + number[wid]}" for wid in works["work_id"][:take]}
        copy = works[:take].assign(work_id=lambda w: w["work_id"].map(ids),
                                   title=lambda w: w["title"] + f" (copy {copy_no})",
                                   doi=lambda w: w["doi"].where(w["doi"].isna(), f"10.5555/b2g.{copy_no}." + w["work_id"].str.lower()))
        names = authorships[authorships["work_id"].isin(ids)]
        names = names.assign(work_id=names["work_id"].map(ids),
                             author_name=names["author_name"].str[:1] + str(copy_no) + names["author_name"].str[1:])
        for name, frame, schema in (("works", copy, WORKS), ("authorships", names, AUTHORSHIPS)):
            table = pa.Table.from_pandas(conform(frame, schema), preserve_index=False)
            if name not in writers:
                writers[name] = pq.ParquetWriter(folder / f"{name}.parquet", table.schema, compression="zstd")
            writers[name].write_table(table)
        made += take
        rows += len(names)
    for writer in writers.values():
        writer.close()
    return {"works": made, "authorships": rows}


def child(folder: Path, row: str) -> dict:
    """Write (or, for `read`, only read) the bibliography of the folder's tables; seconds and peak memory."""
    import pyarrow.parquet as pq

    from bib2graph.export import bibliography

    out = folder / row
    out.mkdir()
    paths = [out / name for name in NAMES]
    works, authorships = folder / "works.parquet", folder / "authorships.parquet"
    start = time.perf_counter()
    if row == "read":
        from bib2graph.export.bibliography_columns import AUTHOR_COLUMNS, WORK_COLUMNS

        for path, columns in ((works, WORK_COLUMNS), (authorships, AUTHOR_COLUMNS)):
            for _batch in pq.ParquetFile(path, pre_buffer=False).iter_batches(batch_size=bibliography.CHUNK_WORKS,
                                                                               columns=columns):
                pass
    elif row == "old":
        bibliography.write_bibliography_chunks(bibliography.table_entry_chunks(works, authorships), paths)
    else:
        from bib2graph.export.bibliography_columns import write_corpus_bibliography

        write_corpus_bibliography(works, authorships, paths)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # before the files are hashed
    digests = [_digest(p) for p in paths] if row != "read" else None
    size = sum(p.stat().st_size for p in paths) if row != "read" else 0
    for p in paths if row != "read" else ():
        p.unlink()
    return {"row": row, "seconds": seconds, "mb": size / 1e6, "digests": digests, "peak_mb": peak}


def _digest(path: Path) -> str:
    """SHA-256 of a file read 16 MB at a time (a million works' BibTeX is 2 GB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while block := stream.read(1 << 24):
            digest.update(block)
    return digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--works", type=int, default=200_000)
    parser.add_argument("--rows", nargs="+", default=ROWS, choices=ROWS)
    parser.add_argument("--child", nargs=2, metavar=("FOLDER", "ROW"), help=argparse.SUPPRESS)
    parser.add_argument("--make", nargs=2, metavar=("FOLDER", "WORKS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child[0]), args.child[1])))
        return
    if args.make:   # in its own process, so that the rows' peaks are their own
        print(json.dumps(make_tables(Path(args.make[0]), int(args.make[1]))))
        return
    with tempfile.TemporaryDirectory(prefix="b2g-bench-bib-") as tmp:
        shape = json.loads(subprocess.run([sys.executable, __file__, "--make", tmp, str(args.works)],
                                          capture_output=True, text=True, check=True).stdout)
        print(f"{shape['works']:,} works, {shape['authorships']:,} authorships", flush=True)
        print(f"{'row':<6} {'s':>9} {'×new':>7} {'file MB':>8} {'peak MB':>8} {'same':>5}", flush=True)
        results = {}
        for row in args.rows:
            proc = subprocess.run([sys.executable, __file__, "--child", tmp, row], capture_output=True, text=True)
            if proc.returncode != 0:
                sys.exit(f"{row}: failed: {proc.stderr.strip()[-2000:]}")
            results[row] = json.loads(proc.stdout)
        new, old = results.get("new"), results.get("old")
        differ = False
        for row, r in results.items():
            ratio = f"{r['seconds'] / new['seconds']:7.2f}" if new else f"{'':7}"
            same = ("" if r["digests"] is None or not old or row == "old"
                    else "yes" if r["digests"] == old["digests"] else "NO")
            differ |= same == "NO"
            print(f"{row:<6} {r['seconds']:9.2f} {ratio} {r['mb']:8.1f} {r['peak_mb']:8.0f} {same:>5}", flush=True)
        if differ:
            sys.exit("the column-wise bibliography differs from the per-entry one")


if __name__ == "__main__":
    main()
