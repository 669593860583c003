"""The corpus and cited jobs, which read only the columns they need and filter the pool's files in Arrow,
write the very bytes the in-memory path wrote (tests/unit/corpus_reference.py: pandas for the whole pool,
the bibliography built whole) on the demo pool and on cases made from it: filters, decisions, shared
DOIs, term expressions, the constant-topic guard, an empty corpus and an empty pool; and the corpus
bibliography written a chunk at a time equals the one written whole at every chunk boundary."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from bib2graph import phases
from bib2graph.curation import header
from bib2graph.export.bibliography import entries, table_entry_chunks, write_bibliography, write_bibliography_chunks
from bib2graph.skips import Skips
from bib2graph.sources.records import CONSTANT_TOPICS
from bib2graph.spec import validate
from bib2graph.tables import (BUNDLE_TABLES, CANDIDATES, SEEDS, SOURCE_REFS, Bundle, empty, read_table,
                              write_table)

from . import corpus_reference as reference
from .test_corpus import _pool

FILTERS = validate({})["filter"]
STOPPING = validate({})["screening"]["stopping"]
NAMES = [*(f"{name}.parquet" for name in BUNDLE_TABLES), "screening.parquet", "prisma.json",
         "bibliography.bib", "bibliography.ris", "bibliography.csl.json"]


@pytest.fixture(scope="module")
def demo_pool(demo_universe):
    """A pool of the demo universe: 40 seeds chained both ways, with its seeds and candidates."""
    return _pool(demo_universe, n_seeds=40)


def _inputs(folder: Path, pool: Bundle, seeds: pd.DataFrame, cands: pd.DataFrame, decisions: list[tuple]) -> dict:
    """The corpus job's inputs as files in `folder`, as the chain job and `b2g accept` leave them."""
    pool.write(folder / "pool")
    write_table(seeds, SEEDS, folder / "seeds.parquet")
    write_table(cands, CANDIDATES, folder / "candidates.parquet")
    rows = "".join(f"{w}\t{d}\t{r}\ttester\t2026-01-01\n" for w, d, r in decisions)
    (folder / "curation.tsv").write_text(header() + rows, encoding="utf-8")
    return {"seeds": str(folder / "seeds.parquet"), "candidates": str(folder / "candidates.parquet"),
            "pool": [str(folder / "pool" / f"{name}.parquet") for name in BUNDLE_TABLES],
            "curation": str(folder / "curation.tsv")}


def _outputs(folder: Path) -> dict:
    return {"tables": [str(folder / f"{name}.parquet") for name in BUNDLE_TABLES],
            "screening": str(folder / "screening.parquet"), "prisma": str(folder / "prisma.json"),
            "bibliography": [str(folder / name) for name in NAMES[-3:]]}


def _same_bytes(tmp_path: Path, pool: Bundle, seeds, cands, filters: dict, decisions=()) -> pd.DataFrame:
    """Run both corpus jobs on the same inputs, assert every output equal byte for byte; the screening."""
    inp = _inputs(tmp_path / "in", pool, seeds, cands, list(decisions))
    spec = {"filter": {**FILTERS, **filters}, "stopping": STOPPING}
    reference.run_corpus(spec, inp, _outputs(tmp_path / "old"))
    phases.run_corpus(spec, None, inp, _outputs(tmp_path / "new"), Skips())
    for name in NAMES:
        old, new = (tmp_path / "old" / name).read_bytes(), (tmp_path / "new" / name).read_bytes()
        assert new == old, f"{name} differs from the in-memory path"
    return read_table(tmp_path / "new" / "screening.parquet", reference.SCREENING)


def test_default_filters_keep_every_work(tmp_path, demo_pool):
    screening = _same_bytes(tmp_path, *demo_pool, {})
    assert screening["included"].all() and len(screening) == len(demo_pool[0].works)


def _varied(pool: Bundle) -> Bundle:
    """The pool with the metadata the demo works all share varied: types, languages (some unknown), a
    retraction, missing years and citation counts, so each filter has works to pass and to fail."""
    works = pool.works.copy()
    n = len(works)
    works["type"] = [("article", "book", "review", None)[i % 4] for i in range(n)]
    works["language"] = [("en", "de", None)[i % 3] for i in range(n)]
    works["is_retracted"] = [i % 11 == 0 for i in range(n)]
    works["year"] = works["year"].astype("Int64").mask(works.index % 13 == 1)
    works["cited_by_count"] = works["cited_by_count"].astype("Int64").mask(works.index % 17 == 2)
    return Bundle(**{**vars(pool), "works": works})


def test_metadata_filters_and_decisions(tmp_path, demo_pool):
    pool, seeds, cands = demo_pool
    pool = _varied(pool)
    years = pool.works.set_index("work_id")["year"]
    ids = sorted(pool.works["work_id"])
    filters = {"year_min": int(years.min()) + 2, "year_max": int(years.max()) - 1, "min_citations": 5,
               "types": ["article", "review"], "languages": ["en"], "exclude_retracted": True}
    old = years.idxmin()
    decisions = [(old, "accept", "a classic"), (ids[5], "reject", "off-topic"), (ids[6], "accept", "")]
    screening = _same_bytes(tmp_path, pool, seeds, cands, filters, decisions)
    steps = set(screening["excluded_by"].dropna())
    assert {"filter:year_min", "filter:year_max", "filter:types", "filter:languages", "filter:retracted",
            "filter:min_citations"} <= steps
    assert screening.set_index("work_id").loc[old, "included"] and screening["included"].any()


def test_shared_dois_keep_the_better_placed_work(tmp_path, demo_pool):
    pool, seeds, cands = demo_pool
    pool = Bundle(**vars(pool))
    others = sorted(set(pool.works["work_id"]) - set(seeds["work_id"]))
    works = pool.works.copy()
    works.loc[works["work_id"].isin([seeds["work_id"].iloc[0], others[0], others[1]]), "doi"] = "10.9999/dup"
    works.loc[works["work_id"].isin(others[2:4]), "doi"] = "10.9999/two"
    pool.works = works
    screening = _same_bytes(tmp_path, pool, seeds, cands, {}, [(others[0], "accept", "wanted")])
    assert int(screening["duplicate_of"].notna().sum()) == 3


def test_term_expressions_and_constant_topics(tmp_path, demo_pool):
    pool, seeds, cands = demo_pool
    target = sorted(set(pool.works["work_id"]) - set(seeds["work_id"]))[0]
    extra = pd.DataFrame({"work_id": target, "field": "topics", "term_id": sorted(CONSTANT_TOPICS),
                          "term": "x", "score": 0.9})
    pool = Bundle(**{**vars(pool), "terms": pd.concat([pool.terms, extra], ignore_index=True)})
    filters = {"include": "perirhinal OR hippocamp* OR x", "exclude": "review",
               "exclude_constant_topics": True}
    screening = _same_bytes(tmp_path, pool, seeds, cands, filters, [(sorted(pool.works["work_id"])[0], "reject", "off-topic")])
    assert {"filter:include", "filter:exclude", "filter:constant_topics"} <= set(screening["excluded_by"].dropna())


def test_an_empty_corpus(tmp_path, demo_pool):
    screening = _same_bytes(tmp_path, *demo_pool, {"year_min": 3000})
    assert not screening["included"].any()


def test_an_empty_pool(tmp_path):
    seeds, cands = empty(SEEDS), empty(CANDIDATES)
    assert len(_same_bytes(tmp_path, Bundle.empty(), seeds, cands, {"include": "rat*"})) == 0


@pytest.mark.long
@pytest.mark.parametrize("size", [1, 2, 7, 100, 10_000])
def test_bibliography_chunks_at_every_boundary(tmp_path, demo_pool, size):
    corpus = demo_pool[0]
    corpus.write(tmp_path / "corpus")
    whole = [tmp_path / f"whole{suffix}" for suffix in (".bib", ".ris", ".csl.json")]
    chunked = [tmp_path / f"chunked{suffix}" for suffix in (".bib", ".ris", ".csl.json")]
    write_bibliography(entries(Bundle.read(tmp_path / "corpus")), whole)
    written = write_bibliography_chunks(table_entry_chunks(tmp_path / "corpus/works.parquet",
                                                           tmp_path / "corpus/authorships.parquet", size), chunked)
    assert written == len(corpus.works)
    for a, b in zip(whole, chunked):
        assert b.read_bytes() == a.read_bytes(), f"{b.name} differs at chunks of {size}"


def _universe(folder: Path, universe) -> list[str]:
    universe.bundle.write(folder)
    refs = universe.refs if universe.refs is not None and len(universe.refs) else empty(SOURCE_REFS)
    write_table(refs, SOURCE_REFS, folder / "cited.parquet")
    return [str(folder / f"{name}.parquet") for name in BUNDLE_TABLES] + [str(folder / "cited.parquet")]


@pytest.mark.parametrize("labels,min_citing", [({"fetch": True, "max_works": None}, 1),
                                               ({"fetch": True, "max_works": 3}, 2),
                                               ({"fetch": False, "max_works": None}, 1)])
def test_cited_job_same_bytes(tmp_path, demo_universe, labels, min_citing):
    pool, seeds, _ = _pool(demo_universe, n_seeds=5)   # a small pool cites many works outside it
    pool.write(tmp_path / "pool")
    inp = {"pool": [str(tmp_path / "pool" / f"{name}.parquet") for name in ("works", "authorships", "references")],
           "universe": _universe(tmp_path / "universe", demo_universe)}
    spec = {"source": {"kind": "files"}, "min_citing": min_citing, "labels": labels}
    reference.run_cited(spec, inp, {"works": str(tmp_path / "old.parquet")})
    counts = phases.run_cited(spec, None, inp, {"works": str(tmp_path / "new.parquet")}, Skips())
    assert (tmp_path / "new.parquet").read_bytes() == (tmp_path / "old.parquet").read_bytes()
    assert counts["outside_pool"] > 0
    assert counts["asked"] == (0 if not labels["fetch"] else min(counts["outside_pool"], labels["max_works"] or 10**9))
    if labels["fetch"] and labels["max_works"] is None:
        assert counts["found"] > 0


def test_a_pool_of_other_arrow_types_is_written_as_write_table_writes(tmp_path, demo_pool):
    """A pool table written with plain `string` columns and no pandas metadata (an older pandas) is
    filtered to what `write_table` writes for the same rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bib2graph.tables import WORKS, filter_table

    works = demo_pool[0].works
    plain = pa.Table.from_pandas(works, preserve_index=False).replace_schema_metadata(None)
    plain = plain.cast(pa.schema([pa.field(f.name, pa.string() if f.type == pa.large_string() else f.type)
                                  for f in plain.schema]))
    pq.write_table(plain, tmp_path / "pool.parquet")
    keep = sorted(works["work_id"])[::3]
    assert filter_table(tmp_path / "pool.parquet", tmp_path / "new.parquet", WORKS,
                        pa.array(keep, pa.large_string())) == len(keep)
    write_table(works[works["work_id"].isin(keep)], WORKS, tmp_path / "old.parquet")
    assert (tmp_path / "new.parquet").read_bytes() == (tmp_path / "old.parquet").read_bytes()
