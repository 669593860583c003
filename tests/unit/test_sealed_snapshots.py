"""Sealed snapshots read back with care: they are shared and committed, so a damaged or edited one is a
typed error naming its file, never INTERNAL, a wrong diff or a file written outside a restore's folder."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from bib2graph import snapshot
from bib2graph.atomic import sha256_file
from bib2graph.errors import DataError


def _sealed(root: Path, snap_id: str, files: dict[str, bytes], sealed_at: str = "2026-01-01") -> Path:
    """A snapshot folder as `snapshot.seal` leaves it: the files and a manifest with their hashes."""
    folder = root / snapshot.SNAPSHOTS / snap_id
    for relative, data in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_bytes(data)
    manifest = {"id": snap_id, "name": snap_id.split("-")[0], "sealed_at": sealed_at, "spec_hash": "s",
                "files": {r: sha256_file(folder / r) for r in files},
                "counts": {"corpus": 1, "networks": {"coupling": {"nodes": 1, "edges": 0, "clusters": 1}}}}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def _works(*ids: str) -> bytes:
    out = io.BytesIO()
    pd.DataFrame({"work_id": list(ids)}).to_parquet(out)
    return out.getvalue()


FILES = {"config/research.yaml": b"name: x\n", "config/curation.tsv": b"W1\taccept\n",
         "results/seed/seeds.parquet": b"seeds", "results/corpus/works.parquet": b""}


@pytest.fixture
def root(tmp_path) -> Path:
    files = {**FILES, "results/corpus/works.parquet": _works("W1", "W2")}
    _sealed(tmp_path, "a-1", files, "2026-01-01")
    _sealed(tmp_path, "b-2", {**files, "results/corpus/works.parquet": _works("W2", "W3")}, "2026-02-01")
    return tmp_path


@pytest.mark.parametrize("text", ["", "{oops", "[]", "{}", '{"id": "c-3", "name": "c", "sealed_at": "x", '
                                  '"files": {}, "counts": {"networks": null}}', "caf\xe9"])
def test_a_damaged_manifest_is_left_out_of_the_list_and_refused_by_diff(root, text):
    broken = root / snapshot.SNAPSHOTS / "c-3"
    broken.mkdir()
    (broken / "manifest.json").write_bytes(text.encode("latin-1"))
    found, damaged = snapshot.list_snapshots(root)
    assert [m["id"] for m in found] == ["a-1", "b-2"] and len(damaged) == 1 and str(broken) in damaged[0]
    assert snapshot.diff(root, "a-1", "b-2")["works_added"] == ["W3"]
    with pytest.raises(DataError) as caught:
        snapshot.diff(root, "a-1", "c-3")
    assert caught.value.code == "ARTIFACT_CORRUPT" and str(broken / "manifest.json") in caught.value.message


def test_a_sealed_corpus_gone_missing_is_no_diff_of_every_work(root):
    (root / snapshot.SNAPSHOTS / "a-1" / "results/corpus/works.parquet").unlink()
    with pytest.raises(DataError) as caught:
        snapshot.diff(root, "a-1", "b-2")
    assert caught.value.code == "ARTIFACT_CORRUPT" and "works.parquet" in caught.value.message


def test_any_sealed_file_gone_missing_is_artifact_corrupt_for_diff(root):
    """A diff reads the corpus and the decisions only; a snapshot without its seeds can no longer be
    restored, and its diff answered as if all were well."""
    gone = root / snapshot.SNAPSHOTS / "b-2" / "results/seed/seeds.parquet"
    gone.unlink()
    for a, b in (("a-1", "b-2"), ("b-2", "a-1")):
        with pytest.raises(DataError) as caught:
            snapshot.diff(root, a, b)
        assert caught.value.code == "ARTIFACT_CORRUPT" and caught.value.details["files"] == [str(gone)]


@pytest.mark.parametrize("snap_id", ["../snapshots/a-1", "..", "a-1/", ""])
def test_a_snapshot_id_names_no_other_folder(root, snap_id):
    with pytest.raises(DataError) as caught:
        snapshot.manifest_of(root, snap_id)
    assert caught.value.code == "UNKNOWN_SNAPSHOT"


def test_a_restore_checks_every_file_against_its_seal_and_writes_nothing_outside(root, tmp_path):
    folder = root / snapshot.SNAPSHOTS / "a-1"
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    (folder / "config/../../../PWN").mkdir(parents=True, exist_ok=True)
    evil = "config/../../../PWN/evil.txt"
    (folder / evil).write_text("x", encoding="utf-8")
    manifest["files"][evil] = sha256_file(folder / evil)
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    into = tmp_path / "restore" / "x" / "target"
    with pytest.raises(DataError) as caught:
        snapshot.prepare_restore(root, "a-1", into)
    assert caught.value.code == "ARTIFACT_CORRUPT" and "no file inside the snapshot" in caught.value.message
    assert not (tmp_path / "restore").exists()

    del manifest["files"][evil]
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / "config/curation.tsv").write_text("W1\treject\tedited\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        snapshot.prepare_restore(root, "a-1", into)
    assert caught.value.code == "ARTIFACT_CORRUPT" and "config/curation.tsv is not what it sealed" in caught.value.message
    assert not into.exists() and not list(into.parent.glob(".*"))   # no partial folder either


def test_a_restore_of_an_intact_snapshot_copies_what_it_needs(root, tmp_path):
    into = tmp_path / "restored"
    snapshot.prepare_restore(root, "b-2", into)
    assert sorted(str(p.relative_to(into)) for p in into.rglob("*") if p.is_file()) == [
        "config/curation.tsv", "config/research.yaml", "results/seed/seeds.parquet"]
    assert not list(tmp_path.glob(".restored*"))


def test_a_restore_that_cannot_write_names_its_target_not_the_staging_folder(root, tmp_path):
    """The error named `.restored.partial`, a folder of the call's own that the user never asked for."""
    into = tmp_path / "restored"
    (tmp_path / ".restored.partial").write_text("a file where the staging folder goes", encoding="utf-8")
    with pytest.raises(OSError) as caught:
        snapshot.prepare_restore(root, "b-2", into)
    assert caught.value.filename == str(into) and not into.exists()


def test_a_restore_that_cannot_rebuild_leaves_no_folder_behind(root, tmp_path):
    """A sealed spec the workflow refuses: the retry would have found WORKSPACE_EXISTS."""
    from bib2graph.service.snapshots import restore
    from bib2graph.service.workspace import Workspace

    folder = root / snapshot.SNAPSHOTS / "a-1"
    (folder / "config/research.yaml").write_text("chain: {depth: many}\n", encoding="utf-8")
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["config/research.yaml"] = sha256_file(folder / "config/research.yaml")
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    into = tmp_path / "restored"
    with pytest.raises(DataError) as caught:
        restore(Workspace(root, "flag"), "a-1", str(into))
    assert caught.value.code == "SPEC_INVALID" and not into.exists()


def test_the_counts_are_of_the_sealed_networks_only(tmp_path):
    """A network the spec no longer names keeps its files in results/ but is not sealed, nor counted."""
    (tmp_path / "results/corpus").mkdir(parents=True)
    (tmp_path / "results/corpus/works.parquet").write_bytes(_works("W1", "W2"))
    for kind in ("coupling", "keywords"):
        (tmp_path / f"results/networks/{kind}").mkdir(parents=True)
        (tmp_path / f"results/networks/{kind}/metrics.json").write_text(
            json.dumps({"kind": kind, "nodes": 2, "edges": 1, "n_clusters": 1}), encoding="utf-8")
    counts = snapshot._counts(tmp_path, ["results/corpus/works.parquet", "results/networks/coupling/metrics.json"])
    assert counts == {"corpus": 2, "networks": {"coupling": {"nodes": 2, "edges": 1, "clusters": 1}}}
