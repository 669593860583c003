"""Bad input, as a hostile user would hand it: every case is a typed error, never a crash, and loses nothing.

Each case breaks one thing in a copy of a built, snapshotted demo workspace, makes one call with --json,
and checks the contract: exit 2..5 (never 70), exactly one envelope on stdout, no traceback, a message
naming the file (and the line where there is one), and config/, resources/ and results/snapshots/ left
byte for byte as they were (results/ too, when the call is `run`: predictable bad input starts no job).
The calls run `b2g`'s own entry point in this process, which is what the console script runs.
"""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import io
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest
import yaml

from bib2graph.cli import main

from ..conftest import DEMO_ZIP
from .conftest import copy_workspace
from .helpers import b2g, check_envelope

pytestmark = pytest.mark.integration
SPEC = "config/research.yaml"
CURATION = "config/curation.tsv"


@dataclass
class Case:
    name: str
    setup: Callable[[Path], list[str]]   # breaks the workspace; returns the call's arguments
    code: str
    exit: int
    names: list[str] = field(default_factory=list)   # text the message must hold (file, line, place)


def edit_spec(ws: Path, change: Callable[[dict], None]) -> None:
    spec = yaml.safe_load((ws / SPEC).read_text(encoding="utf-8"))
    change(spec)
    (ws / SPEC).write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")


def spec_text(text: str | bytes) -> Callable[[Path], list[str]]:
    def setup(ws: Path) -> list[str]:
        data = text.encode("utf-8") if isinstance(text, str) else text
        (ws / SPEC).write_bytes(data)
        return ["run"]
    return setup


def spec_edit(change: Callable[[dict], None], verb: str = "run") -> Callable[[Path], list[str]]:
    def setup(ws: Path) -> list[str]:
        edit_spec(ws, change)
        return [verb]
    return setup


def nested(section: str, **values) -> Callable[[dict], None]:
    def change(spec: dict) -> None:
        spec.setdefault(section, {}).update(values)
    return change


def source_file(name: str, data: bytes, strict: bool = False) -> Callable[[Path], list[str]]:
    """The universe read from `data/<name>` instead of the bundled zip."""
    def setup(ws: Path) -> list[str]:
        (ws / "data").mkdir(exist_ok=True)
        (ws / "data" / name).write_bytes(data)
        edit_spec(ws, lambda s: (s["source"].update(files=[f"data/{name}"]), s.update(strict=strict)))
        return ["run"]
    return setup


def seed_file(name: str, data: bytes, strict: bool = False) -> Callable[[Path], list[str]]:
    def setup(ws: Path) -> list[str]:
        (ws / name).write_bytes(data)
        edit_spec(ws, lambda s: (s["seed"].update(files=[name]), s.update(strict=strict)))
        return ["run"]
    return setup


def thesaurus(text: str | None, kind: str = "keywords") -> Callable[[Path], list[str]]:
    def setup(ws: Path) -> list[str]:
        if text is not None:
            (ws / "config/thesaurus.tsv").write_text(text, encoding="utf-8")
        edit_spec(ws, lambda s: s["networks"][kind].update(thesaurus="config/thesaurus.tsv"))
        return ["run"]
    return setup


def curation_rows(*rows: str, raw: bytes | None = None) -> Callable[[Path], list[str]]:
    def setup(ws: Path) -> list[str]:
        data = raw if raw is not None else ("work_id\tdecision\treason\tdecided_by\tdecided_at\n"
                                            + "".join(r + "\n" for r in rows)).encode("utf-8")
        (ws / CURATION).write_bytes(data)
        return ["run"]
    return setup


def review_csv(text: str | None) -> Callable[[Path], list[str]]:
    def setup(ws: Path) -> list[str]:
        path = ws.parent / "reviewed.csv"
        if text is not None:
            path.write_text(text, encoding="utf-8")
        return ["curate", "apply", str(path)]
    return setup


def demo_member(number: int = 1) -> tuple[str, bytes]:
    with zipfile.ZipFile(DEMO_ZIP) as archive:
        name = sorted(archive.namelist())[number]
        return name, archive.read(name)


def zip_with_a_damaged_member() -> bytes:
    """A real works zip whose second member's compressed bytes were overwritten (its CRC fails)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(DEMO_ZIP) as source, zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for name in sorted(source.namelist()):
            target.writestr(name, source.read(name))
    data = bytearray(buffer.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as probe:
        info = probe.infolist()[1]
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for offset in range(start + 10, start + 60):
        data[offset] ^= 0xFF
    return bytes(data)


def jsonl(works: list[dict]) -> bytes:
    return "".join(json.dumps(w) + "\n" for w in works).encode("utf-8")


def demo_works() -> list[dict]:
    return json.loads(demo_member(0)[1])


def held_run_lock(ws: Path) -> list[str]:
    fd = os.open(ws / ".snakemake/b2g-run.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    HELD.append(fd)
    return ["run"]


HELD: list[int] = []


def corrupt(relative: str, verb: list[str]) -> Callable[[Path], list[str]]:
    def setup(ws: Path) -> list[str]:
        path = ws / relative
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
        return verb
    return setup


def replaced(relative: str, data: bytes, verb: list[str]) -> Callable[[Path], list[str]]:
    def setup(ws: Path) -> list[str]:
        (ws / relative).write_bytes(data)
        return verb
    return setup


def pending_damaged(ws: Path) -> list[str]:
    path = ws / "resources/monitor/pending.jsonl.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(b'{"id": "https://openalex.org/W1", "_b2g": {}}\n')[:-6])
    return ["run"]


def init_under_a_file(ws: Path) -> list[str]:
    (ws.parent / "plain-file").write_text("not a folder", encoding="utf-8")
    return ["init", str(ws.parent / "plain-file" / "review")]


def spec_is_a_folder(ws: Path) -> list[str]:
    (ws / SPEC).unlink()
    (ws / SPEC).mkdir()
    return ["status"]


WORKS = demo_works()
BAD_UTF8_LINE = jsonl(WORKS[:2]) + b'{"id": "https://openalex.org/W9", "title": "caf\xe9"}\n'
CASES = [
    # the spec
    Case("spec-empty", spec_text("# nothing here\n"), "SPEC_INVALID", 2, [SPEC, "empty"]),
    Case("spec-not-a-mapping", spec_text("- a\n- b\n"), "SPEC_INVALID", 2, [SPEC]),
    Case("spec-yaml-syntax", spec_text("name: [unclosed\nseed: {}\n"), "SPEC_INVALID", 2, [SPEC, "line"]),
    Case("spec-duplicate-key", spec_text("name: a\nname: b\n"), "SPEC_INVALID", 2, [f"{SPEC}:2", "name"]),
    Case("spec-alias", spec_text("name: &n x\nseed: {ids: [*n]}\n"), "SPEC_INVALID", 2, [SPEC]),
    Case("spec-not-utf8", spec_text(b"name: caf\xe9\n"), "FILE_ENCODING", 2, [SPEC, "line 1"]),
    Case("spec-too-big", spec_text("# " + "x" * (1 << 20) + "\n"), "SPEC_INVALID", 2, [SPEC]),
    Case("spec-unknown-key", spec_edit(lambda s: s["networks"]["coupling"].update(min_wieght=2)),
         "SPEC_INVALID", 2, ["networks.coupling.min_wieght"]),
    Case("spec-wrong-type", spec_edit(nested("chain", depth="two")), "SPEC_INVALID", 2, ["chain.depth"]),
    Case("spec-min-weight-zero", spec_edit(lambda s: s["networks"]["coupling"].update(min_weight=0)),
         "SPEC_INVALID", 2, ["networks.coupling.min_weight"]),
    Case("spec-louvain-cpm", spec_edit(nested("communities", algorithm="louvain", objective="cpm")),
         "NETWORK_PARAMS_INVALID", 2, ["communities.objective"]),
    Case("spec-infinite-resolution", spec_edit(nested("communities", resolution=float("inf"))),
         "NETWORK_PARAMS_INVALID", 2, ["communities.resolution"]),
    Case("spec-bad-expression", spec_edit(nested("filter", include="rat AND (")), "SPEC_INVALID", 2,
         ["filter.include", "column"]),
    Case("spec-empty-year-range", spec_edit(nested("filter", year_min=2020, year_max=2000)), "SPEC_INVALID", 2,
         ["filter.year_min"]),
    Case("spec-query-without-openalex", spec_edit(nested("seed", query="object recognition")),
         "SPEC_UNSUPPORTED", 2, ["seed.query"]),
    Case("spec-no-seeds", spec_edit(nested("seed", ids=[])), "SPEC_INVALID", 2, ["seed"]),
    Case("spec-is-a-folder", spec_is_a_folder, "SPEC_UNREADABLE", 5, [SPEC]),
    # files the spec names
    Case("source-file-missing", spec_edit(nested("source", files=["data/gone.zip"])), "FILE_MISSING", 2,
         ["data/gone.zip", "source.files.0"]),
    Case("source-file-a-folder", spec_edit(nested("source", files=["config"])), "FILE_INVALID", 2,
         ["config", "source.files.0", "is a folder"]),
    Case("validate-source-file-a-folder", spec_edit(nested("source", files=["config"]), "validate"),
         "VALIDATION_FAILED", 2, ["config", "source.files.0", "is a folder"]),
    Case("seed-file-missing", spec_edit(nested("seed", files=["seeds.bib"])), "FILE_MISSING", 2,
         ["seeds.bib", "seed.files.0"]),
    Case("thesaurus-missing", thesaurus(None), "FILE_MISSING", 2, ["config/thesaurus.tsv"]),
    Case("author-thesaurus-missing", thesaurus(None, "coauthorship"), "FILE_MISSING", 2,
         ["config/thesaurus.tsv", "networks.coauthorship.thesaurus"]),
    Case("seed-file-unknown-kind", seed_file("seeds.txt", b"W1\n"), "SPEC_INVALID", 2, ["seed.files.0"]),
    Case("bibtex-malformed-strict", seed_file("seeds.bib", b"@article{ok, doi = {10.1/x}}\n@article{broken,\n"
                                              b"  title = {no end\n", strict=True), "RECORD_INVALID", 2,
         ["seeds.bib", "line 2"]),
    Case("ris-not-utf8", seed_file("seeds.ris", b"TY  - JOUR\nTI  - Caf\xe9\nER  - \n"), "FILE_ENCODING", 2,
         ["seeds.ris", "line 2"]),
    Case("seed-json-not-json", seed_file("seeds.json", b"{not json"), "FILE_INVALID", 2, ["seeds.json"]),
    Case("source-zip-damaged-member", source_file("works.zip", zip_with_a_damaged_member()), "FILE_CORRUPT", 2,
         ["data/works.zip", demo_member(1)[0]]),
    Case("source-not-a-zip", source_file("works.zip", b"PK but not really"), "FILE_CORRUPT", 2, ["data/works.zip"]),
    Case("source-gzip-truncated", source_file("works.jsonl.gz", gzip.compress(jsonl(WORKS))[:-200]),
         "FILE_CORRUPT", 2, ["data/works.jsonl.gz"]),
    Case("source-jsonl-not-utf8", source_file("works.jsonl", BAD_UTF8_LINE), "FILE_ENCODING", 2,
         ["data/works.jsonl", "line 3"]),
    Case("source-json-not-json", source_file("works.json", b"[{\"id\": "), "FILE_INVALID", 2, ["data/works.json"]),
    Case("source-jsonl-bad-line-strict", source_file("works.jsonl", jsonl(WORKS[:3]) + b"{oops\n", strict=True),
         "RECORD_INVALID", 2, ["data/works.jsonl", "line 4"]),
    Case("source-lone-surrogate-strict", source_file("works.jsonl", jsonl(WORKS[:2]) +
                                                     b'{"id": "https://openalex.org/W7", "title": "x\\udc80"}\n',
                                                     strict=True), "RECORD_INVALID", 2, ["data/works.jsonl", "line 3"]),
    # the thesaurus
    Case("thesaurus-no-header", thesaurus("C1\tC2\n"), "THESAURUS_INVALID", 2, ["config/thesaurus.tsv", "1"]),
    Case("thesaurus-three-cells", thesaurus("term_id\treplace_by\nC1\tC2\tC3\n"), "THESAURUS_INVALID", 2,
         ["config/thesaurus.tsv", "2"]),
    Case("institution-thesaurus-vosviewer-three-cells",
         thesaurus("label\treplace by\nRoche\tI1\tI2\n", "institutions"), "THESAURUS_INVALID", 2,
         ["config/thesaurus.tsv", "2"]),
    Case("thesaurus-cycle", thesaurus("term_id\treplace_by\nC1\tC2\nC2\tC1\n"), "THESAURUS_INVALID", 2,
         ["config/thesaurus.tsv"]),
    # the curation file
    Case("curation-duplicate-id", curation_rows("W1\taccept", "W1\treject\toff-topic"), "CURATION_INVALID", 2,
         [CURATION, "3"]),
    Case("curation-bad-decision", curation_rows("W1\tmaybe"), "CURATION_INVALID", 2, [CURATION, "2"]),
    Case("curation-reject-without-reason", curation_rows("W1\treject"), "CURATION_INVALID", 2, [CURATION, "2"]),
    Case("curation-too-many-cells", curation_rows("W1\taccept\ta\tb\tc\td"), "CURATION_INVALID", 2, [CURATION, "2"]),
    Case("curation-bad-id", curation_rows("10.1/x\taccept"), "CURATION_INVALID", 2, [CURATION, "2"]),
    Case("curation-not-utf8", curation_rows(raw=b"work_id\tdecision\treason\nW1\treject\tcaf\xe9\n"),
         "FILE_ENCODING", 2, [CURATION, "line 2"]),
    # a reviewed spreadsheet
    Case("csv-no-decision-column", review_csv("work_id,reason\nW1,x\n"), "CURATION_INVALID", 2, ["reviewed.csv"]),
    Case("csv-reject-without-reason", review_csv("work_id,decision,reason\nW2000180785,reject,\n"),
         "CURATION_INVALID", 2, ["reviewed.csv", "2"]),
    Case("csv-bad-decision", review_csv("work_id,decision,reason\nW1,perhaps,\n"), "CURATION_INVALID", 2,
         ["reviewed.csv", "2"]),
    Case("csv-missing", review_csv(None), "FILE_MISSING", 2, ["reviewed.csv"]),
    Case("csv-a-folder", lambda ws: (ws.parent / "reviewed.csv").mkdir() or ["curate", "apply",  # Click's USAGE_ERROR
                                                                            str(ws.parent / "reviewed.csv")],
         "FILE_INVALID", 2, ["reviewed.csv", "folder"]),
    Case("csv-conflicting-decisions", review_csv("work_id,decision,reason\nW2000180785,accept,\n"
                                                 "W2000180785,reject,dup\n"), "CURATION_INVALID", 2, ["reviewed.csv"]),
    # the workspace
    Case("workspace-missing", lambda ws: ["status", "--workspace", str(ws.parent / "nowhere")],
         "WORKSPACE_NOT_FOUND", 5, ["nowhere"]),
    Case("run-while-locked", held_run_lock, "WORKSPACE_LOCKED", 5, []),
    Case("run-snakemake-refuses-a-value", lambda ws: ["run", "--cores", "abc"], "USAGE_ERROR", 1,
         ["Snakemake refused", "Error parsing number of cores"]),
    Case("run-unknown-snakemake-option", lambda ws: ["run", "--no-such-option"], "USAGE_ERROR", 1,
         ["unrecognized arguments: --no-such-option"]),
    Case("run-no-such-target", lambda ws: ["run", "--until", "bogus"], "USAGE_ERROR", 1,
         ["No rule to produce bogus"]),
    Case("run-threads-not-a-number", lambda ws: ["run", "--set-threads", "layout=abc", "--forcerun",
                                                 "results/layouts/keywords/layout.parquet"], "USAGE_ERROR", 1,
         ["--set-threads 'layout=abc'", "whole number"]),
    Case("run-resources-not-a-size", lambda ws: ["run", "--set-resources", "layout:mem_mb=abc", "--forcerun",
                                                 "results/layouts/keywords/layout.parquet"], "USAGE_ERROR", 1,
         ["layout:mem_mb", "mem=8GB"]),
    Case("run-resources-not-an-assignment", lambda ws: ["run", "--set-resources", "bogus"], "USAGE_ERROR", 1,
         ["RULE:RESOURCE=VALUE"]),
    Case("run-snakemake-parser-refuses", lambda ws: ["run", "--set-scatter", "x=y"], "USAGE_ERROR", 1,
         ["Invalid scatter definition"]),
    Case("run-elsewhere", lambda ws: ["run", "--snakefile", "/etc/passwd"], "USAGE_ERROR", 1, ["--snakefile"]),
    Case("init-under-a-file", init_under_a_file, "IO_ERROR", 5, ["plain-file"]),
    # artifacts
    Case("inspect-corrupt-pool", corrupt("results/chain/pool/works.parquet", ["inspect", "W2000180785"]),
         "ARTIFACT_CORRUPT", 2, ["results/chain/pool/works.parquet"]),
    Case("snapshot-corrupt-corpus", corrupt("results/corpus/works.parquet", ["snapshot", "--name", "x"]),
         "RESULTS_STALE", 2, ["results/corpus/works.parquet"]),
    Case("validate-corrupt-edges", corrupt("results/networks/coupling/edges.parquet", ["validate"]),
         "VALIDATION_FAILED", 2, ["results/networks/coupling/edges.parquet"]),
    Case("validate-metrics-of-another-shape", replaced("results/networks/coupling/metrics.json",
                                                       b'{"nodes": "many", "edges": -1}', ["validate"]),
         "VALIDATION_FAILED", 2, ["results/networks/coupling/metrics.json", "'clusters' is a required property"]),
    Case("validate-prisma-not-json", replaced("results/corpus/prisma.json", b"NaN", ["validate"]),
         "VALIDATION_FAILED", 2, ["results/corpus/prisma.json", "NaN is not JSON"]),
    Case("pending-damaged", pending_damaged, "ARTIFACT_CORRUPT", 2, ["resources/monitor/pending.jsonl.gz"]),
]


@pytest.fixture(scope="module")
def sealed(built_demo, tmp_path_factory) -> Path:
    """The built demo with one snapshot, so that a call which touched snapshots would show."""
    root = copy_workspace(built_demo, tmp_path_factory.mktemp("sealed") / "review")
    call = b2g("snapshot", "--name", "before", "--json", "--workspace", str(root))
    assert call.returncode == 0, call.stderr[-2000:]
    return root


def tree(root: Path, folder: str) -> dict[str, bytes]:
    base = root / folder
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()} \
        if base.is_dir() else {}


def call_b2g(args: list[str], ws: Path) -> tuple[int, str, str]:
    """`b2g ARGS --json --workspace WS` in this process: (exit, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    if "--workspace" not in args and args[0] != "init":
        args = args + ["--workspace", str(ws)]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args + ["--json"])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.long
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_is_a_typed_error_that_loses_nothing(case, sealed, tmp_path):
    ws = copy_workspace(sealed, tmp_path / "review")
    args = case.setup(ws)
    watched = ["config", "resources", "results/snapshots"] + (["results"] if args[0] == "run" else [])
    before = {folder: tree(ws, folder) for folder in watched}
    try:
        code, out, err = call_b2g(args, ws)
    finally:
        while HELD:
            os.close(HELD.pop())
    assert "Traceback" not in err and "Traceback" not in out
    lines = out.splitlines()
    assert len(lines) == 1, out
    env = json.loads(lines[0])
    check_envelope(env)
    assert (code, env["exit_code"]) == (case.exit, case.exit), env
    assert 2 <= code <= 5 or (code, case.code) == (1, "USAGE_ERROR")
    assert env["error"]["code"] == case.code, env["error"]
    for text in case.names:
        assert text in env["error"]["message"], (text, env["error"]["message"])
    for folder in watched:
        after = tree(ws, folder)
        if folder == "results":   # a run that starts no job writes nothing but its logs
            after = {k: v for k, v in after.items() if not k.startswith("results/logs/")}
            before[folder] = {k: v for k, v in before[folder].items() if not k.startswith("results/logs/")}
        assert after == before[folder], folder
    assert not list((ws / "results/snapshots").glob(".*.partial"))


def test_the_table_is_wide():
    assert len(CASES) >= 40
    assert {c.exit for c in CASES} >= {2, 5}


@pytest.mark.long
def test_an_unreadable_curation_file_is_said_by_every_verb(sealed, tmp_path):
    """status said PERMISSION_DENIED (exit 5, from the drift check's hashing) where queue said
    FILE_UNREADABLE (exit 2): now status answers with the work it shows stale and warns, as for a broken
    curation file, and the verbs that need the decisions stop. Root reads any file, so as root b2g runs
    without the capabilities that let it (setpriv, util-linux)."""
    import shutil
    import subprocess
    import sys

    ws = copy_workspace(sealed, tmp_path / "review")
    curation = ws / CURATION
    curation.write_text(curation.read_text(encoding="utf-8"), encoding="utf-8")   # new times: it is hashed
    curation.chmod(0)
    drop = [] if os.geteuid() else [shutil.which("setpriv"), "--bounding-set", "-dac_override,-dac_read_search",
                                    "--inh-caps", "-dac_override,-dac_read_search"]

    def call(verb: str) -> tuple[int, dict]:
        done = subprocess.run([*drop, sys.executable, "-m", "bib2graph", verb, "--json", "--workspace", str(ws)],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert "Traceback" not in done.stderr
        return done.returncode, json.loads(done.stdout)

    code, status = call("status")
    assert code == 0 and "corpus" in status["data"]["pending_jobs"]
    assert any(str(curation) in w and "cannot be read" in w for w in status["warnings"]), status["warnings"]
    code, queue = call("queue")
    assert (code, queue["error"]["code"]) == (2, "FILE_UNREADABLE") and str(curation) in queue["error"]["message"]
