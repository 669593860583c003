"""Sealed snapshots of a review: `results/snapshots/<id>/`, never overwritten.

A snapshot holds the spec, the curation file and every artifact from seeds to networks and the
report (the service names them from the registry and checks they are current), plus `manifest.json`:
the hash of each sealed file, the OpenAlex data dates, the package and dependency versions and the
counts. Snapshots are shared and committed, so what is read from one is checked: its manifest's shape,
the sealed files a diff reads, and every file a restore copies against the hash it sealed. Its ID is `<name>-<first 12 hex of the hash of its content>`, so
sealing the same state twice finds the existing snapshot instead of writing a second one.
"""

from __future__ import annotations

import json
import re
import shutil
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Any

from . import __version__, query
from .atomic import canonical_json, copy_file, naming, sha256_file, sha256_text, write_json
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


def _counts(root: Path, sealed: list[str]) -> dict[str, Any]:
    """The corpus size and the sealed networks' sizes (not those of networks the spec no longer names,
    whose files stay in results/ but are not sealed)."""
    works = root / "results/corpus/works.parquet"
    nets = {}
    for metrics in sorted(root / r for r in sealed if re.fullmatch(r"results/networks/[^/]+/metrics\.json", r)):
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
        return read_manifest(target / "manifest.json"), False
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
                "dependencies": _versions(), "counts": _counts(root, list(files))}
    write_json(staging / "manifest.json", manifest)
    return manifest


def manifest_of(root: Path, snap_id: str) -> dict[str, Any]:
    path = root / SNAPSHOTS / snap_id / "manifest.json"
    if not path.is_file() or snap_id in ("", ".", "..") or "/" in snap_id or "\\" in snap_id:
        known = ", ".join(m["id"] for m in list_snapshots(root)[0]) or "none"
        raise DataError(f"no snapshot {snap_id!r} (known: {known})", code="UNKNOWN_SNAPSHOT")
    return read_manifest(path)


def read_manifest(path: Path) -> dict[str, Any]:
    """A snapshot's manifest, or ARTIFACT_CORRUPT naming it: not JSON, not of a manifest's shape, or naming
    a sealed file outside its snapshot (`config/../../x`: a restore would write there)."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _damaged(path, f"cannot be read as JSON ({exc})") from None
    problem = _manifest_problem(found)
    if problem:
        raise _damaged(path, problem)
    return found


def _manifest_problem(found: Any) -> str | None:
    if not isinstance(found, dict):
        return f"holds {type(found).__name__}, not a manifest"
    for key, kind in (("id", str), ("name", str), ("sealed_at", str), ("files", dict), ("counts", dict)):
        if not isinstance(found.get(key), kind):
            return f"its {key!r} is missing or not a {kind.__name__}"
    if not isinstance(found["counts"].get("networks"), dict):
        return "its counts.networks is missing or not a mapping"
    for relative, digest in found["files"].items():
        parts = PurePosixPath(relative).parts
        if PurePosixPath(relative).is_absolute() or ".." in parts or not parts or not isinstance(digest, str):
            return f"it names {relative!r}, no file inside the snapshot"
    return None


def _damaged(path: Path, why: str) -> DataError:
    return DataError(f"snapshot manifest {path} {why}; the snapshot was damaged or edited (seal a new one with "
                     "`b2g snapshot`)", code="ARTIFACT_CORRUPT", details={"files": [str(path)]})


def list_snapshots(root: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """(the snapshots, by seal time; the messages of those whose manifest is damaged, which are left out)."""
    folder = root / SNAPSHOTS
    found, damaged = [], []
    for path in sorted(folder.glob("*/manifest.json")) if folder.is_dir() else []:
        try:
            m = read_manifest(path)
        except DataError as exc:
            damaged.append(exc.message)
            continue
        found.append({k: m[k] for k in ("id", "name", "sealed_at", "counts")})
    return sorted(found, key=lambda m: (m["sealed_at"], m["id"])), damaged


def _sealed(folder: Path, manifest: dict[str, Any], relative: str) -> Path | None:
    """The sealed file `relative` of a snapshot (`_all_present` checked it is there), None when it sealed
    no such file."""
    return folder / relative if relative in manifest["files"] else None


def _all_present(folder: Path, manifest: dict[str, Any]) -> None:
    """ARTIFACT_CORRUPT naming the files a snapshot sealed that are gone: a diff reads only some of them,
    but a snapshot missing any can no longer be restored, and the diff must not look as if all were well."""
    gone = [relative for relative in sorted(manifest["files"]) if not (folder / relative).is_file()]
    if gone:
        raise DataError(f"snapshot {manifest['id']} sealed {len(gone)} file(s) that are missing ({', '.join(gone[:3])}"
                        f"{', …' if len(gone) > 3 else ''}); the snapshot was damaged", code="ARTIFACT_CORRUPT",
                        details={"files": [str(folder / relative) for relative in gone]})


def _corpus_ids(folder: Path, manifest: dict[str, Any]) -> set[str]:
    path = _sealed(folder, manifest, "results/corpus/works.parquet")
    return query.column(path, "work_id") if path else set()


def _decisions(folder: Path, manifest: dict[str, Any]) -> dict[str, str]:
    from .curation import read

    path = _sealed(folder, manifest, "config/curation.tsv")
    return {k: d.decision for k, d in read(path).items()} if path else {}


def diff(root: Path, a: str, b: str) -> dict[str, Any]:
    """What changed from snapshot `a` to snapshot `b`: works, decisions, network sizes and clusters."""
    ma, mb = manifest_of(root, a), manifest_of(root, b)
    fa, fb = root / SNAPSHOTS / a, root / SNAPSHOTS / b
    for folder, manifest in ((fa, ma), (fb, mb)):
        _all_present(folder, manifest)
    wa, wb = _corpus_ids(fa, ma), _corpus_ids(fb, mb)
    da, db = _decisions(fa, ma), _decisions(fb, mb)
    changed = sorted(k for k in set(da) | set(db) if da.get(k) != db.get(k))
    nets = {}
    for kind in sorted(set(ma["counts"]["networks"]) | set(mb["counts"]["networks"])):
        x, y = ma["counts"]["networks"].get(kind) or {}, mb["counts"]["networks"].get(kind) or {}
        nets[kind] = {field: {"from": x.get(field), "to": y.get(field)} for field in ("nodes", "edges", "clusters")}
    return {"from": a, "to": b, "works_added": sorted(wb - wa), "works_removed": sorted(wa - wb),
            "decisions_changed": [{"work_id": k, "from": da.get(k), "to": db.get(k)} for k in changed],
            "spec_changed": ma.get("spec_hash") != mb.get("spec_hash"), "networks": nets}


def network_files(folder: Path) -> dict[str, str]:
    """Hash of every network table and metrics file under `folder/results/networks`."""
    base = folder / "results/networks"
    return {p.relative_to(base).as_posix(): sha256_file(p) for p in sorted(base.rglob("*"))
            if p.is_file() and p.name != "manifest.json"}


def prepare_restore(root: Path, snap_id: str, into: Path) -> dict[str, Any]:
    """A new workspace at `into` holding the snapshot's spec, curation, seeds and pool (no network needed):
    running its workflow rebuilds corpus and networks from the sealed data alone. Each file is checked
    against the hash its manifest sealed before anything is written, and the workspace appears whole
    or not at all (a damaged snapshot leaves no half-restored folder behind)."""
    manifest = manifest_of(root, snap_id)
    if into.exists() and (not into.is_dir() or any(into.iterdir())):
        raise DataError(f"{into} is not empty; restore into a new folder", code="WORKSPACE_EXISTS")
    source = root / SNAPSHOTS / snap_id
    wanted = sorted(r for r in manifest["files"] if r.startswith(("config/", "results/seed/", "results/chain/")))
    for relative in wanted:
        path = source / relative
        if not path.is_file() or sha256_file(path) != manifest["files"][relative]:
            raise DataError(f"snapshot {snap_id}: {relative} is {'missing' if not path.is_file() else 'not what it sealed'}"
                            f" (its hash differs from the manifest's); the snapshot was damaged or edited",
                            code="ARTIFACT_CORRUPT", details={"files": [str(path)]})
    staging = into.parent / f".{into.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        for relative in wanted:
            copy_file(source / relative, staging / relative)
        if into.exists():
            into.rmdir()            # empty: checked above
        staging.rename(into)
    except OSError as exc:       # the staging folder is the call's own: the user knows the target
        shutil.rmtree(staging, ignore_errors=True)
        raise naming(exc, into) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return manifest
