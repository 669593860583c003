"""The OpenAlex snapshot source's pieces: the partitions it lists, a partition read and selected, the
gather's latest-record rule, and the checks and jobs a snapshot spec gives."""

from __future__ import annotations

import json

import pytest

from bib2graph import checks, registry
from bib2graph.errors import DataError, SpecError
from bib2graph.skips import Skips
from bib2graph.sources.snapshot import gather, read_partition
from bib2graph.sources.snapshot_layout import CURRENT, LEGACY, PRE_2026, layout, partition_file, partitions
from bib2graph.spec import validate
from bib2graph.tables import BUNDLE_TABLES, ORIGINS, Bundle, conform
from tests.snapshot_builder import write_manifest, write_partition


def _work(n: int, year: int, updated: str, cites: int = 0) -> dict:
    return {"id": f"https://openalex.org/W{n}", "title": f"Work {n}", "publication_year": year,
            "updated_date": updated, "cited_by_count": cites,
            "referenced_works": [f"https://openalex.org/W{n + 100}"],
            "authorships": [{"author": {"id": f"https://openalex.org/A{n}", "display_name": f"Author {n}"}}]}


def test_partitions_come_from_the_manifest_else_the_files(tmp_path):
    write_partition(tmp_path, "2024-02-01", 0, [_work(1, 2020, "2024-02-01")])
    write_partition(tmp_path, "2024-01-01", 1, [_work(2, 2020, "2024-01-01")])
    (tmp_path / "data/works/updated_date=2024-01-01/notes.txt").write_text("not a partition")
    assert partitions(tmp_path) == ["2024-01-01.part_001", "2024-02-01.part_000"]
    write_manifest(tmp_path)
    manifest = json.loads((tmp_path / "data/works/manifest").read_text())
    assert [e["meta"]["record_count"] for e in manifest["entries"]] == [1, 1]
    manifest["entries"].append({"url": "s3://openalex/data/works/updated_date=2024-03-01/part_000.gz", "meta": {}})
    (tmp_path / "data/works/manifest").write_text(json.dumps(manifest))
    assert partitions(tmp_path)[-1] == "2024-03-01.part_000"   # listed, not yet there: a missing input
    assert partition_file("2024-03-01.part_000") == "data/works/updated_date=2024-03-01/part_000.gz"
    (tmp_path / "data/works/manifest").write_text('{"entries": [{"url": "s3://openalex/data/authors/x.gz"}]}')
    with pytest.raises(DataError) as err:
        partitions(tmp_path)
    assert err.value.code == "FILE_INVALID"


@pytest.mark.parametrize("found", [CURRENT, PRE_2026, LEGACY], ids=["current", "pre-2026", "legacy-data"])
@pytest.mark.parametrize("manifest", [True, False], ids=["manifest", "glob"])
def test_every_openalex_layout_is_found_from_the_folder_and_lists_the_same_partitions(tmp_path, found, manifest):
    """OpenAlex's current layout (data/jsonl/works/…/part_NNNN.gz, one combined manifest.json listing every
    entity), the pre-2026 one (data/works/…, data/works/manifest) and the same kept under legacy-data/."""
    folder = tmp_path / "snap"
    written = []
    for date, part in (("2024-02-01", 0), ("2024-01-01", 1), ("2024-01-01", 0)):
        written.append(write_partition(folder, date, part, [_work(part + 1, 2020, date)], layout=found))
    if manifest:
        write_manifest(folder, found)
        listed = json.loads((folder / found.manifest).read_text())["entries"]
        assert any("/authors/" in e["url"] for e in listed) == found.combined   # the combined one lists others
    assert layout(folder) == found
    digits = "0000" if found.combined else "000"
    keys = partitions(folder)
    assert keys == [f"2024-01-01.part_{digits}", f"2024-01-01.part_{digits[:-1]}1", f"2024-02-01.part_{digits}"]
    assert sorted(folder / partition_file(k, folder) for k in keys) == sorted(written)
    spec = _spec(path="snap", year_min=2000)
    jobs = {job.name: job for job in registry.jobs(spec, tmp_path)}
    assert jobs[f"snapshot_part:{keys[-1]}"].inputs["partition"] == [str(folder / partition_file(keys[-1], folder))]


def test_the_current_layout_wins_over_the_legacy_copy_beside_it(tmp_path):
    write_partition(tmp_path, "2024-01-01", 0, [_work(1, 2020, "2024-01-01")], layout=LEGACY)
    write_partition(tmp_path, "2025-01-01", 0, [_work(1, 2020, "2025-01-01")], layout=CURRENT)
    assert layout(tmp_path) == CURRENT and partitions(tmp_path) == ["2025-01-01.part_0000"]
    assert layout(tmp_path / "nothing") == PRE_2026   # a missing folder is named in the documented layout


def test_a_partition_is_selected_by_year_and_the_latest_record_of_a_work_wins(tmp_path):
    old = write_partition(tmp_path, "2024-01-01", 0, [_work(1, 2019, "2024-01-01", 5), _work(2, 2010, "2024-01-01"),
                                                      _work(3, 2020, "2024-01-01", 7)])
    new = write_partition(tmp_path, "2024-02-01", 0, [_work(1, 2019, "2024-02-01", 6), {"no": "id"},
                                                      _work(1, 2019, "2024-01-15", 9)])   # older: passed over
    selection = {"year_min": 2015, "year_max": None}
    read = []
    for path in (old, new):
        folder = tmp_path / "out" / path.parent.name
        counts = read_partition(path, path.name, selection, Skips(), folder)
        read.append((path.parent.name, folder, counts))
    assert sorted(p.name for p in (tmp_path / "out/updated_date=2024-01-01").iterdir()) == sorted(
        f"{name}.parquet" for name in [*BUNDLE_TABLES, "origins"])   # the batches are gone
    part = Bundle.read(tmp_path / "out/updated_date=2024-02-01")
    assert dict(zip(part.works["work_id"], part.works["cited_by_count"])) == {"W1": 6}   # the later line lost
    assert read[0][2] == {"records": 3, "works": 2, "outside_selection": 1, "outside_by": {"year": 1},
                          "duplicates": 0}
    assert read[1][2] == {"records": 2, "works": 1, "outside_selection": 0, "outside_by": {}, "duplicates": 1}
    tables: dict = {}
    counts = gather([(key, folder) for key, folder, _ in read], tables.__setitem__)
    bundle = Bundle(**{name: conform(tables[name], schema) for name, schema in BUNDLE_TABLES.items()})
    cited, origins = tables["cited"], conform(tables["origins"], ORIGINS)
    assert dict(zip(bundle.works["work_id"], bundle.works["cited_by_count"])) == {"W1": 6, "W3": 7}
    assert list(bundle.authorships["work_id"]) == ["W1", "W3"] and cited.empty
    assert list(origins["file"]) == ["part_000.gz", "part_000.gz"] and counts["files"][0]["duplicates"] == 1
    with pytest.raises(DataError):
        gather([], tables.__setitem__)


def _spec(**snapshot) -> dict:
    return validate({"source": {"kind": "snapshot", "snapshot": snapshot}, "seed": {"all": True},
                     "networks": {"citation": {}}})


def test_a_snapshot_spec_is_checked_and_gives_one_job_per_partition(tmp_path):
    with pytest.raises(SpecError, match="source.snapshot.path"):
        checks.check("seed", json.loads(registry.params(_spec(), "seed")))
    with pytest.raises(SpecError, match="year_min"):
        checks.check("snapshot_part", json.loads(registry.params(_spec(path="s", year_min=2020, year_max=2019),
                                                                  "snapshot_part")))
    spec = _spec(path="snap", year_min=2000)
    checks.check("seed", json.loads(registry.params(spec, "seed")))   # seed.all: every work of the universe
    for date in ("2024-01-01", "2024-02-01"):
        write_partition(tmp_path / "snap", date, 0, [_work(1, 2020, date)])
    jobs = {job.name: job for job in registry.jobs(spec, tmp_path)}
    assert [n for n in jobs if n.startswith("snapshot_part")] == ["snapshot_part:2024-01-01.part_000",
                                                                  "snapshot_part:2024-02-01.part_000"]
    part = jobs["snapshot_part:2024-02-01.part_000"]
    assert part.inputs["partition"] == [str(tmp_path / "snap/data/works/updated_date=2024-02-01/part_000.gz")]
    assert part.outputs["manifest"] == "results/snapshot/2024-02-01.part_000/manifest.json"
    assert "results/snapshot/2024-01-01.part_000/origins.parquet" in jobs["sources"].inputs["parts"]
    assert jobs["seed"].inputs["universe"] == registry.SOURCE_TABLES
    assert part.params == jobs["snapshot_part:2024-01-01.part_000"].params   # the path is not the selection


def test_a_partition_is_selected_by_topics_concepts_and_a_term_expression(tmp_path):
    def work(n: int, title: str, topic: str, concept: str) -> dict:
        return {**_work(n, 2020, "2024-01-01"), "title": title,
                "topics": [{"id": f"https://openalex.org/{topic}", "display_name": f"Topic {topic}"}],
                "concepts": [{"id": f"https://openalex.org/{concept}", "display_name": "Hippocampus"}]}

    path = write_partition(tmp_path, "2024-01-01", 0, [
        work(1, "Object recognition in rats", "T1", "C1"), work(2, "Object recognition in mice", "T2", "C1"),
        work(3, "Rats in context", "T1", "C2"), work(4, "Spatial memory of rats", "T1", "C1")])
    selection = {"topics": ["https://openalex.org/T1"], "concepts": ["C1"],
                 "include": 'rat* AND ("object recognition" OR hippocampus)'}
    counts = read_partition(path, path.name, selection, Skips(), tmp_path / "a")
    assert list(Bundle.read(tmp_path / "a").works["work_id"]) == ["W1", "W4"]   # W4 by its concept's name
    assert counts["outside_selection"] == 2 and counts["outside_by"] == {"concepts": 1, "topics": 1}
    counts = read_partition(path, path.name, {"include": "mice"}, Skips(), tmp_path / "b")
    assert list(Bundle.read(tmp_path / "b").works["work_id"]) == ["W2"] and counts["outside_by"] == {"include": 3}
    with pytest.raises(SpecError, match="source.snapshot.include"):
        checks.check("snapshot_part", json.loads(registry.params(_spec(path="s", include="rat AND"),
                                                                  "snapshot_part")))
    unset, set_ = (json.loads(registry.params(_spec(path="s", **extra), "snapshot_part"))
                   for extra in ({}, {"topics": ["T1"]}))
    assert unset["source"]["snapshot"] == {} and set_["source"]["snapshot"] == {"topics": ["T1"]}
