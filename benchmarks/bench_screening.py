"""Screening: bib2graph's ranked queue beside ASReview's default model on labelled reviews, and the cost
of re-ranking after a decision at 10,000 pending works.

Part 1, per review (a SYNERGY folder: works_*.zip and labels.csv): a workspace whose universe is the
review's works (`seed.all`, no chaining) is built with `b2g run chain`, then `b2g simulate` replays the
labels with 1 prior include and 1 prior exclude per seed (seeds 0-4). ASReview 3.0.8's default model
(ELAS u4: TF-IDF + SVM, max query) replays the same labelled works (title and abstract, as ASReview reads
them) from the same priors with the same seeds; it runs in a virtual environment of its own, made on
first use (`--asreview-venv`), and is no dependency of bib2graph. Both orders are scored by the same
code (bib2graph.screening.metrics): WSS@95, recall after 10%, ATD; for bib2graph also where the stopping
rule said stop, the recall there and the work saved. Per review and the median over reviews.

Part 2: a pool of 10,300 works (the SYNERGY works replicated with new IDs, tests/snapshot_builder.py),
300 seeds and 50 rejects: pending ≈ 10,000. The queue as the GUI asks it after a decision
(`service.queue.screening_queue`, the pool's features kept in the process) against the floor: one bare
fit and predict of the same model on the same in-memory features. Medians of `--repeat` runs.

Part 3 (`--scale N`): one replay (seed 0) on a pool of N works (the SYNERGY works replicated, Oud_2018's
includes and their copies labelled include, the rest exclude), with the spec's default refit share against
refitting after every decision (`screening.simulation.refit: 0`): seconds, decisions and WSS@95 of each.

    python benchmarks/bench_screening.py                          # the five shared reviews, both parts
    python benchmarks/bench_screening.py --reviews DIR [DIR …]     # other labelled reviews
    python benchmarks/bench_screening.py --skip-asreview --skip-rerank
    python benchmarks/bench_screening.py --reviews --skip-rerank --scale 5000
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SYNERGY = ROOT.parent / "shared" / "data" / "synergy"
ASREVIEW = "asreview==3.0.8"
DEFAULT_VENV = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "bib2graph" / "asreview-3.0.8"

#: Runs inside ASReview's venv: stdin {title, abstract, labels, runs: [{priors, seed}]}, stdout the
#: screening order of each run (record indices, priors first), as `asreview simulate` makes it.
ASREVIEW_RUNNER = r'''
import json, sys
import numpy as np, pandas as pd
from asreview.learner import ActiveLearningCycle
from asreview.models.models import get_ai_config
from asreview.models.queriers import TopDown
from asreview.models.stoppers import IsFittable
from asreview.simulation.simulate import Simulate
job = json.load(sys.stdin)
frame = pd.DataFrame({"title": job["title"], "abstract": job["abstract"]})
labels = np.array(job["labels"])
orders = []
for run in job["runs"]:
    np.random.seed(run["seed"])
    cycles = [ActiveLearningCycle(querier=TopDown(), stopper=IsFittable()),
              ActiveLearningCycle.from_meta(get_ai_config("elas_u4")["value"])]
    sim = Simulate(frame, labels, cycles, stopper=None, print_progress=False)
    sim.label(run["priors"])
    sim.review()
    orders.append([int(i) for i in sim._results["record_id"]])
json.dump(orders, sys.stdout)
'''


def b2g(*args: str) -> dict:
    """`b2g ARGS --json` as a user runs it; its envelope."""
    done = subprocess.run([sys.executable, "-m", "bib2graph", *args, "--json"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    envelope = json.loads(done.stdout.strip().splitlines()[-1])
    if not envelope["ok"]:
        raise SystemExit(f"b2g {' '.join(args)} failed: {envelope['error']}\n{done.stderr[-2000:]}")
    return envelope["data"]


def review_workspace(folder: Path, scratch: Path) -> Path:
    """A workspace whose universe and pool are the review's works."""
    import yaml

    ws = scratch / folder.name
    b2g("init", str(ws))
    spec = {"name": folder.name, "source": {"kind": "files", "files": [str(p) for p in sorted(folder.glob("works_*.zip"))]},
            "seed": {"all": True}, "chain": {"direction": "none"}, "networks": {"citation": {}}}
    (ws / "config/research.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    b2g("run", "chain", "--cores", "1", "--workspace", str(ws))
    return ws


def ours(ws: Path, labels: Path, seeds: list[int], priors: int) -> tuple[dict, dict[int, list[int]], float]:
    """`b2g simulate`: its envelope data, each seed's label sequence (priors left out), seconds."""
    import pandas as pd

    start = time.perf_counter()
    data = b2g("simulate", "--labels", str(labels), "--priors", str(priors), *[a for s in seeds for a in ("--seed", str(s))],
               "--out", str(ws / "simulation.parquet"), "--workspace", str(ws))
    seconds = time.perf_counter() - start
    table = pd.read_parquet(ws / "simulation.parquet")
    sequences = {int(seed): rows.sort_values("step")["label"].astype(int).tolist() for seed, rows in table.groupby("seed")}
    return data, sequences, seconds


def asreview_venv(path: Path) -> Path:
    python = path / "bin" / "python"
    if not python.exists():
        print(f"making ASReview's venv in {path} ({ASREVIEW}) …", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", ASREVIEW], check=True)
    return python


def asreview(python: Path, ws: Path, labels: Path, runs: list[dict]) -> tuple[dict[int, list[int]], float]:
    """ASReview's default on the labelled works the pool holds (row order = work ID order, as ours), from
    the same priors; each seed's label sequence (priors left out), seconds."""
    from bib2graph.screening.labels import pool_identifiers, read
    from bib2graph.tables import WORKS, read_columns

    works = read_columns(ws / "results/chain/pool/works.parquet", WORKS, ["work_id", "doi", "title", "abstract"])
    found = read(labels, set(works["work_id"]), pool_identifiers(ws / "results/chain/pool/works.parquet")).table
    frame = works.set_index("work_id").loc[found["work_id"]]
    index = {w: i for i, w in enumerate(found["work_id"])}
    y = found["label"].astype(int).tolist()
    job = {"title": frame["title"].fillna("").tolist(), "abstract": frame["abstract"].fillna("").tolist(), "labels": y,
           "runs": [{"seed": r["seed"], "priors": sorted(index[w] for w in r["priors"])} for r in runs]}
    start = time.perf_counter()
    done = subprocess.run([str(python), "-c", ASREVIEW_RUNNER], input=json.dumps(job), capture_output=True, text=True,
                          cwd=ws)        # ASReview leaves a cache file where it runs
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"ASReview failed:\n{done.stderr[-3000:]}")
    sequences = {}
    for run, order in zip(job["runs"], json.loads(done.stdout)):
        prior = set(run["priors"])
        screened = [i for i in order if i not in prior]
        rest = [i for i in range(len(y)) if i not in prior and i not in set(screened)]   # stopped at the last include
        sequences[run["seed"]] = [y[i] for i in screened + rest]
    return sequences, seconds


def scores(sequence: list[int]) -> tuple[float, float, float]:
    from bib2graph.screening import metrics

    return metrics.wss(sequence, 0.95), metrics.recall_at(sequence, 0.10), metrics.atd(sequence)[1]


def padded(sequence: list[int], total: int) -> list[int]:
    return sequence + [0] * (total - len(sequence))


def part_one(args) -> list[dict]:
    python = None if args.skip_asreview else asreview_venv(args.asreview_venv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="b2g-bench-screening-") as tmp:
        for folder in args.reviews:
            folder = Path(folder)
            ws = review_workspace(folder, Path(tmp))
            data, mine, ours_s = ours(ws, folder / "labels.csv", args.seeds, args.priors)
            total = data["runs"][0]["to_screen"]
            row = {"review": folder.name, "works": data["labels"]["matched"], "includes": data["labels"]["includes"],
                   "ours": np.mean([scores(padded(mine[s], total)) for s in args.seeds], axis=0), "ours_s": ours_s,
                   "stop": data["stopping"], "stop_runs": data["runs"]}
            if python is not None:
                theirs, row["asreview_s"] = asreview(python, ws, folder / "labels.csv", data["runs"])
                row["asreview"] = np.mean([scores(theirs[s]) for s in args.seeds], axis=0)
            rows.append(row)
            print_row(row, flush=True)
    return rows


HEADER = (f"{'review':<20} {'works':>5} {'incl':>4} | {'WSS@95 ours':>11} {'ASR':>6} {'Δ':>6} | {'R@10 ours':>9} "
          f"{'ASR':>6} | {'ATD ours':>8} {'ASR':>6} | {'rule stopped':>12} {'recall there':>12} {'saved':>6} | seconds ours/ASR")


def print_row(row: dict, flush: bool = False) -> None:
    o, a = row["ours"], row.get("asreview")
    stop = row["stop"]
    recalls = [r["recall_at_stop"] for r in row["stop_runs"] if r["recall_at_stop"] is not None]
    saved = [r["work_saved_at_stop"] for r in row["stop_runs"] if r["work_saved_at_stop"] is not None]
    fmt = lambda v: f"{v:6.3f}" if v is not None else "     -"   # noqa: E731
    print(f"{row['review']:<20} {row['works']:>5} {row['includes']:>4} | {o[0]:11.3f} {fmt(a[0] if a is not None else None)} "
          f"{fmt(o[0] - a[0] if a is not None else None)} | {o[1]:9.3f} {fmt(a[1] if a is not None else None)} | "
          f"{o[2]:8.3f} {fmt(a[2] if a is not None else None)} | {stop['stopped']:>4}/{stop['runs']} "
          f"({stop['stopped_before_the_end']} early) {fmt(min(recalls) if recalls else None):>12} "
          f"{fmt(statistics.mean(saved) if saved else None)} | {row['ours_s']:.0f}/{row.get('asreview_s', 0):.0f}",
          flush=flush)


def summary(rows: list[dict]) -> None:
    print("\nmedian over reviews (means over seeds per review; ATD as a share of the works screened):")
    ours_m = np.median([r["ours"] for r in rows], axis=0)
    line = f"  bib2graph: WSS@95 {ours_m[0]:.3f}, recall@10% {ours_m[1]:.3f}, ATD {ours_m[2]:.3f}"
    if all("asreview" in r for r in rows):
        asr = np.median([r["asreview"] for r in rows], axis=0)
        line += f"\n  ASReview:  WSS@95 {asr[0]:.3f}, recall@10% {asr[1]:.3f}, ATD {asr[2]:.3f}"
        ahead = sum(r["ours"][0] - r["asreview"][0] >= 0.05 for r in rows)
        line += f"\n  reviews where our mean WSS@95 is at least 0.05 above ASReview's: {ahead} of {len(rows)}"
    print(line)
    runs = [run for r in rows for run in r["stop_runs"]]
    claimed = [run for run in runs if run["stopped_at"] is not None]
    held = sum(bool(run["recall_target_met"]) for run in claimed)
    early = {r["review"] for r in rows if r["stop"]["stopped_before_the_end"]}
    print(f"  stopping rule: said stop in {len(claimed)} of {len(runs)} runs; recall ≥ target there in {held} of "
          f"{len(claimed)} ({100 * held / max(len(claimed), 1):.1f}%); stopped before the end in {len(early)} of "
          f"{len(rows)} reviews; mean work saved at the stop "
          f"{statistics.mean([r['work_saved_at_stop'] for r in claimed]) if claimed else 0:.3f}")


def part_two(pending: int, repeat: int) -> None:
    """Re-ranking at `pending` works against one bare fit and predict of the same model."""
    import pandas as pd

    from bib2graph import curation
    from bib2graph.screening import model
    from bib2graph.service import ranking
    from bib2graph.service.init import init_workspace
    from bib2graph.service.queue import screening_queue
    from bib2graph.service.workspace import Workspace
    from bib2graph.sources.records import bundle_from_works
    from bib2graph.skips import Skips
    from bib2graph.tables import SEEDS, write_table
    from tests.snapshot_builder import replicate, synergy_works

    seeds_n, rejects = 300, 50
    with tempfile.TemporaryDirectory(prefix="b2g-bench-rerank-") as tmp:
        root = Path(tmp) / "review"
        init_workspace(str(root))
        ws = Workspace(root, "flag")
        works = replicate(synergy_works(*sorted(SYNERGY.glob("*/works_*.zip"))), pending + seeds_n + rejects)
        bundle_from_works(works, Skips()).write(root / "results/chain/pool")
        ids = sorted(pd.read_parquet(root / "results/chain/pool/works.parquet", columns=["work_id"])["work_id"])
        rng = np.random.default_rng(0)
        chosen = rng.permutation(ids)
        seeded, rejected = sorted(chosen[:seeds_n]), sorted(chosen[seeds_n:seeds_n + rejects])
        write_table(pd.DataFrame({"work_id": seeded, "seeded_by": "id"}), SEEDS, root / "results/seed/seeds.parquet")
        curation.record(root / "config/curation.tsv", [curation.Decision(w, "reject", "bench", "bench",
                                                                         f"2026-01-01T00:00:{i % 60:02d}Z")
                                                       for i, w in enumerate(rejected)])
        start = time.perf_counter()
        first = screening_queue(ws, 50)
        cold = time.perf_counter() - start
        print(f"\nre-ranking at {first.data['pending']} pending works ({len(ids)} pooled; {seeds_n} seeds, "
              f"{rejects} rejects); the first call builds the features: {cold:.2f} s")
        spec_model = ranking.spec(ws)["screening"]["model"]
        features = ranking.features(ws, spec_model)
        index = features.index()
        now = ranking.current(ws)
        waiting = np.array([index[w] for w in now.waiting], dtype=np.int64)
        inc, exc = [index[w] for w in now.includes], [index[w] for w in now.excludes]

        def bare() -> None:
            fitted = model.fit(features, inc, exc, spec_model)
            fitted.scores(waiting)

        queue_times, bare_times = [], []
        for i in range(repeat):
            top = screening_queue(ws, 50).data["works"][0]["work_id"]
            curation.record(root / "config/curation.tsv", [curation.Decision(top, "reject", "bench", "bench",
                                                                             f"2026-01-02T00:00:{i:02d}Z")])
            start = time.perf_counter()
            screening_queue(ws, 50)          # after the decision: what the GUI asks
            queue_times.append(time.perf_counter() - start)
            now = ranking.current(ws)
            inc, exc = [index[w] for w in now.includes], [index[w] for w in now.excludes]
            waiting = np.array([index[w] for w in now.waiting], dtype=np.int64)
            start = time.perf_counter()
            bare()
            bare_times.append(time.perf_counter() - start)
        q, b = statistics.median(queue_times), statistics.median(bare_times)
        print(f"  queue after a decision (50 shown, with why-here and why-ranked): median {q * 1000:.0f} ms "
              f"of {repeat}")
        print(f"  floor, one bare fit + predict of the same model on the same features: median {b * 1000:.0f} ms")
        print(f"  ratio {q / b:.2f}x (the aim: at most 2x)")


def part_three(n: int) -> None:
    """A replay at `n` pooled works, with the default refit share and with a fit after every decision."""
    import pandas as pd

    from bib2graph.screening import features, metrics, simulation
    from bib2graph.skips import Skips
    from bib2graph.sources.records import bundle_from_works
    from bib2graph.spec import schema_defaults
    from tests.snapshot_builder import original_id, replicate, synergy_works

    base = synergy_works(*sorted(SYNERGY.glob("*/works_*.zip")))
    labels = pd.read_csv(SYNERGY / "Oud_2018" / "labels.csv")
    included = set(labels.loc[labels["label_included"] == 1, "openalex_id"].str.rsplit("/", n=1).str[-1])
    works = replicate(base, n)
    pool = bundle_from_works(works, Skips())

    table = pd.DataFrame({"work_id": pool.works["work_id"]})
    table["label"] = [int(original_id(w, base) in included) for w in table["work_id"]]
    screening = schema_defaults("screening")
    start = time.perf_counter()
    built = features.build(pool.works, pool.terms, pool.references, None, screening["model"])
    print(f"\nreplay at {len(table):,} pooled works ({int(table['label'].sum())} includes, Oud_2018's and their "
          f"copies); features {time.perf_counter() - start:.1f} s")
    stop = screening["stopping"]
    timed = {}
    for refit in (float(screening["simulation"]["refit"]), 0.0):
        start = time.perf_counter()
        (run,) = simulation.simulate(built, table, screening["model"], 1, [0], stop["recall"], stop["confidence"],
                                     refit=refit)
        timed[refit] = time.perf_counter() - start
        order = np.concatenate([run.labels, np.zeros(run.to_screen - len(run.labels), dtype=np.int64)])
        print(f"  refit {refit:<5}: {timed[refit]:7.1f} s for {len(run.order):,} decisions, "
              f"WSS@95 {metrics.wss(order, 0.95):.3f}, stopped at {run.summary(stop['recall'], stop['confidence'])['stopped_at']}")
    default = float(screening["simulation"]["refit"])
    print(f"  every decision / the default share: {timed[0.0] / timed[default]:.1f}x the time")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reviews", nargs="*", default=[str(p) for p in sorted(SYNERGY.iterdir()) if (p / "labels.csv").is_file()]
                        if SYNERGY.is_dir() else [])
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2, 3, 4])
    parser.add_argument("--priors", type=int, default=1)
    parser.add_argument("--asreview-venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--skip-asreview", action="store_true")
    parser.add_argument("--skip-rerank", action="store_true")
    parser.add_argument("--pending", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--scale", type=int, default=0, help="part 3 at this many pooled works (0: not run)")
    args = parser.parse_args(argv)
    if args.reviews:
        print(HEADER)
        summary(part_one(args))
    if not args.skip_rerank:
        part_two(args.pending, args.repeat)
    if args.scale:
        part_three(args.scale)
    return 0


if __name__ == "__main__":
    sys.exit(main())
