"""Sealed snapshots of a review: `results/snapshots/<id>/`, never overwritten.

A snapshot holds the spec, the curation file and every artifact from seeds to networks and the
report (the service names them from the registry and checks they are current), plus `manifest.json`: the hash of each sealed file, the OpenAlex data dates, the package and
dependency versions and the counts. Its ID is `<name>-<first 12 hex of the hash of its content>`, so
sealing the same state twice finds the existing snapshot instead of writing a second one.
"""

from __future__ import annotations

import json
import shutil
from importlib import metadata
from pathlib import Path
from typing import Any

from . import __version__, query
from .atomic import canonical_json, copy_file, sha256_file, sha256_text, write_json
from .errors import DataError

SNAPSHOTS = Path("results/snapshots")
DEPENDENCIES = ("snakemake", "duckdb", "httpx", "networkx", "igraph", "leidenalg", "scipy", "numpy", "pyarrow",
                "pandas", "pandera", "pyyaml", "jsonschema", "click", "bibtexparser", "rispy")


def _versions() -> dict[str, str]:
    found = {}
    for name in DEPENDENCIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def _counts(root: Path) -> dict[str, Any]:
    works = root / "results/corpus/works.parquet"
    nets = {}
    for metrics in sorted((root / "results/networks").glob("*/metrics.json")):
        m = json.loads(metrics.read_text(encoding="utf-8"))
        nets[m["kind"]] = {"nodes": m["nodes"], "edges": m["edges"], "clusters": m.get("n_clusters")}
    return {"corpus": query.count(works), "networks": nets}


def _data_dates(root: Path) -> dict[str, Any]:
    works = root / "results/corpus/works.parquet"
    if not works.is_file():
        return {}
    low, high = query.rows("SELECT min(updated_date), max(updated_date) FROM read_parquet(?)", [str(works)])[0]
    return {"works_updated_from": low, "works_updated_to": high}


def seal(root: Path, name: str, now: str, sealed: list[str]) -> tuple[dict[str, Any], bool]:
    """Seal the files `sealed` (relative to `root`, all present and current: the caller checks);
    return (manifest, created) — created is False when the same content was sealed before."""
    files = {relative: sha256_file(root / relative) for relative in sorted(sealed)}
    digest = sha256_text(canonical_json(files))
    snap_id = f"{name}-{digest[:12]}"
    target = root / SNAPSHOTS / snap_id
    if (target / "manifest.json").is_file():
        return json.loads((target / "manifest.json").read_text(encoding="utf-8")), False
    staging = root / SNAPSHOTS / f".{snap_id}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        manifest = _stage(root, staging, files, snap_id, name, now, digest)
        staging.rename(target)  # the snapshot appears whole or not at all
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return manifest, True


def _stage(root: Path, staging: Path, files: dict[str, str], snap_id: str, name: str, now: str,
           digest: str) -> dict[str, Any]:
    for relative in files:
        copy_file(root / relative, staging / relative)
    manifest = {"id": snap_id, "name": name, "sealed_at": now, "content_hash": digest,
                "spec_hash": files.get("config/research.yaml"), "curation_hash": files.get("config/curation.tsv"),
                "files": files, "openalex_data": _data_dates(root), "bib2graph_version": __version__,
                "dependencies": _versions(), "counts": _counts(root)}
    write_json(staging / "manifest.json", manifest)
    return manifest


def manifest_of(root: Path, snap_id: str) -> dict[str, Any]:
    path = root / SNAPSHOTS / snap_id / "manifest.json"
    if not path.is_file():
        known = ", ".join(m["id"] for m in list_snapshots(root)) or "none"
        raise DataError(f"no snapshot {snap_id!r} (known: {known})", code="UNKNOWN_SNAPSHOT")
    return json.loads(path.read_text(encoding="utf-8"))


def list_snapshots(root: Path) -> list[dict[str, Any]]:
    folder = root / SNAPSHOTS
    found = []
    for path in sorted(folder.glob("*/manifest.json")) if folder.is_dir() else []:
        m = json.loads(path.read_text(encoding="utf-8"))
        found.append({k: m[k] for k in ("id", "name", "sealed_at", "counts")})
    return sorted(found, key=lambda m: (m["sealed_at"], m["id"]))


def _corpus_ids(folder: Path) -> set[str]:
    path = folder / "results/corpus/works.parquet"
    return query.column(path, "work_id") if path.is_file() else set()


def _decisions(folder: Path) -> dict[str, str]:
    from .curation import read

    return {k: d.decision for k, d in read(folder / "config/curation.tsv").items()}


def diff(root: Path, a: str, b: str) -> dict[str, Any]:
    """What changed from snapshot `a` to snapshot `b`: works, decisions, network sizes and clusters."""
    ma, mb = manifest_of(root, a), manifest_of(root, b)
    fa, fb = root / SNAPSHOTS / a, root / SNAPSHOTS / b
    wa, wb = _corpus_ids(fa), _corpus_ids(fb)
    da, db = _decisions(fa), _decisions(fb)
    changed = sorted(k for k in set(da) | set(db) if da.get(k) != db.get(k))
    nets = {}
    for kind in sorted(set(ma["counts"]["networks"]) | set(mb["counts"]["networks"])):
        x, y = ma["counts"]["networks"].get(kind, {}), mb["counts"]["networks"].get(kind, {})
        nets[kind] = {field: {"from": x.get(field), "to": y.get(field)} for field in ("nodes", "edges", "clusters")}
    return {"from": a, "to": b, "works_added": sorted(wb - wa), "works_removed": sorted(wa - wb),
            "decisions_changed": [{"work_id": k, "from": da.get(k), "to": db.get(k)} for k in changed],
            "spec_changed": ma["spec_hash"] != mb["spec_hash"], "networks": nets}


def network_files(folder: Path) -> dict[str, str]:
    """Hash of every network table and metrics file under `folder/results/networks`."""
    base = folder / "results/networks"
    return {p.relative_to(base).as_posix(): sha256_file(p) for p in sorted(base.rglob("*"))
            if p.is_file() and p.name != "manifest.json"}


def prepare_restore(root: Path, snap_id: str, into: Path) -> dict[str, Any]:
    """A new workspace at `into` holding the snapshot's spec, curation, seeds and pool (no network needed):
    running its workflow rebuilds corpus and networks from the sealed data alone."""
    manifest = manifest_of(root, snap_id)
    if into.exists() and any(into.iterdir()):
        raise DataError(f"{into} is not empty; restore into a new folder", code="WORKSPACE_EXISTS")
    source = root / SNAPSHOTS / snap_id
    for relative in manifest["files"]:
        if relative.startswith(("config/", "results/seed/", "results/chain/")):
            copy_file(source / relative, into / relative)
    return manifest
