"""A review built from the files a lab holds: a Web of Science export and a Scopus export of one query,
read by the `sources` job, merged into one universe, and mapped by a real Snakemake run."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from .helpers import b2g

WOS = "wos/scientopy-iot-gateway-wos.txt"
SCOPUS = "scopus/scientopy-iot-gateway-scopus.csv"
#: the module's workflow run on the two exports takes about 40 s
pytestmark = pytest.mark.long


def _rows(path: Path, encoding: str = "utf-8-sig", delimiter: str = ",") -> list[dict[str, str]]:
    with path.open(encoding=encoding, newline="") as handle:
        return list(csv.DictReader(handle, delimiter=delimiter))


@pytest.fixture(scope="module")
def built(shared_data, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("exports") / "review"
    assert b2g("init", str(root), "--json").returncode == 0
    (root / "data").mkdir()
    for name in (WOS, SCOPUS):
        shutil.copy(shared_data / name, root / "data" / Path(name).name)
    spec = {"name": "IoT gateways from WoS and Scopus",
            "source": {"kind": "files", "files": [f"data/{Path(WOS).name}", f"data/{Path(SCOPUS).name}"]},
            "seed": {"all": True}, "chain": {"direction": "none"},
            "networks": {"coupling": {}, "cocitation": {}},
            "export": {"formats": ["csv", "bibliography"]}}
    (root / "config/research.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    run = b2g("run", "--cores", "2", "--json", "--workspace", str(root))
    assert run.returncode == 0, run.stderr[-3000:]
    return root


def _manifest(root: Path, job: str) -> dict:
    return json.loads((root / f"results/{job}/manifest.json").read_text(encoding="utf-8"))


def test_every_record_of_both_exports_is_read_and_the_shared_works_merged(built, shared_data):
    counts = _manifest(built, "sources")["counts"]
    wos_rows = _rows(shared_data / WOS, delimiter="\t")
    scopus_rows = _rows(shared_data / SCOPUS)
    files = {Path(f["file"]).name: f for f in counts["files"]}
    assert files[Path(WOS).name]["records"] == len(wos_rows)
    assert files[Path(SCOPUS).name]["records"] == len(scopus_rows)
    # every DOI the two files share is one work: the Scopus record is the duplicate (WoS ranks first)
    norm = lambda d: (d or "").strip().lower()   # noqa: E731
    shared_dois = {norm(r["DI"]) for r in wos_rows} & {norm(r["DOI"]) for r in scopus_rows} - {""}
    assert files[Path(SCOPUS).name]["duplicates"] >= len(shared_dois) > 50
    works = pd.read_parquet(built / "results/sources/works.parquet")
    assert len(works) == counts["works"] == counts["records"] - sum(f["duplicates"] for f in counts["files"])
    assert works.loc[works["doi"].isin(shared_dois), "work_id"].str.startswith("WOS:").all()
    origins = pd.read_parquet(built / "results/sources/origins.parquet")
    merged = origins[origins["work_id"].isin(works.loc[works["doi"].isin(shared_dois), "work_id"])]
    assert set(merged["format"]) == {"wos-tab", "scopus-csv"}


def test_prisma_counts_duplicates_per_source(built):
    prisma = json.loads((built / "results/corpus/prisma.json").read_text(encoding="utf-8"))
    counts = _manifest(built, "sources")["counts"]
    assert prisma["sources"]["files"] == counts["files"]
    assert prisma["identified"]["seeds"] == counts["works"] == prisma["included"]


def test_every_cited_reference_is_parsed_or_listed(built, shared_data):
    refs = _manifest(built, "sources")["counts"]["references"]
    cr = [c for r in _rows(shared_data / WOS, delimiter="\t") for c in r["CR"].split("; ") if c.strip()]
    assert refs["total"] == len(cr)          # the old Scopus layout carries no references
    assert len(refs["unparsed_shown"]) == min(refs["unparsed"], 1000)
    assert sum(refs["identities_by_method"].values()) == refs["identities"]


def test_cited_works_outside_the_exports_are_named_from_the_reference(built):
    nodes = pd.read_parquet(built / "results/networks/cocitation/nodes.parquet")
    outside = nodes[nodes["node_id"].str.startswith("REF:")]
    assert len(outside) > 50
    cited = pd.read_parquet(built / "results/sources/cited.parquet").set_index("work_id")
    for node_id, label in zip(outside["node_id"], outside["label"]):
        row = cited.loc[node_id]
        if row["first_author"] is not None and not pd.isna(row["year"]):
            surname = row["first_author"].split(",")[0]
            assert label.startswith(f"{surname} ({int(row['year'])})"), (label, row.to_dict())
    # a cited work written with and without its DOI across the export is one node, not two
    top = outside.sort_values("occurrences", ascending=False).iloc[0]
    assert top["occurrences"] == max(nodes["occurrences"])
    assert re.match(r"^\w", top["label"])


def test_bibliographies_hold_the_corpus_and_the_report_says_where_references_went(built):
    works = pd.read_parquet(built / "results/corpus/works.parquet")
    bib = (built / "results/corpus/bibliography.bib").read_text(encoding="utf-8")
    assert len(re.findall(r"^@\w+\{", bib, flags=re.M)) == len(works)
    ris = (built / "results/export/coupling/bibliography.ris").read_text(encoding="utf-8")
    assert ris.count("\nER  -") + ris.startswith("ER  -") == len(works)
    report = (built / "results/report/index.html").read_text(encoding="utf-8")
    assert "Source files" in report and "cited references read" in report


def test_works_from_exports_are_curated_by_their_own_ids(built):
    works = pd.read_parquet(built / "results/corpus/works.parquet")
    wos_id = sorted(w for w in works["work_id"] if w.startswith("WOS:"))[0]
    scopus_id = sorted(w for w in works["work_id"] if w.startswith("2-s2.0-"))[0]
    call = b2g("reject", wos_id, scopus_id, "--reason", "off-topic", "--json", "--workspace", str(built))
    assert call.returncode == 0, call.stdout
    assert call.envelope["data"]["changed"] == sorted([wos_id, scopus_id])
    status = b2g("status", "--json", "--workspace", str(built)).envelope["data"]
    assert "corpus" in {job["job"] for job in status["jobs"] if job["state"] == "stale"}
