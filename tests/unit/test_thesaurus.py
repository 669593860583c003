"""Thesauri are read strictly (every problem names the file and the line) and merge or drop the nodes of
the keywords, coauthorship and institutions networks, by ID or label."""

from __future__ import annotations

from pathlib import Path

import pytest

from bib2graph import registry, spec, thesaurus
from bib2graph.errors import DataError
from bib2graph.networks import build, edge_evidence
from bib2graph.sources.files import read_work_objects
from bib2graph.sources.records import bundle_from_works

DONNERS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "synergy" / "Donners_2021" / "works_1.zip"
FAST = {"stability_runs": 1}

HEADER = "term_id\treplace_by\n"


def _write(tmp_path, text: str, encoding="utf-8"):
    path = tmp_path / "thesaurus.tsv"
    path.write_bytes(text.encode(encoding))
    return path


def _fails(path, line, code="THESAURUS_INVALID") -> DataError:
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(DataError) as info:
        thesaurus.read(path)
    err = info.value
    assert err.code == code and 2 <= err.exit_code <= 5
    if code == "THESAURUS_INVALID":
        assert err.message.startswith(f"{path}:{line}:") and err.details["line"] == line
    assert err.details["file"] == str(path) and str(path) in err.message
    assert (path.read_bytes() if path.is_file() else None) == before
    return err


def test_tolerated_forms_and_chains(tmp_path):
    text = ("# merges\r\nterm_id\treplace_by\r\n\r\nC3\tC4\r\n  # drop a generic one\r\nC1\tC2\r\nC2\tC3\r\n"
            "C9\t\r\nC8\tC9\r\n C5 \t C6 \r\nC1\tC2\r\n")
    want = {"C3": "C4", "C1": "C4", "C2": "C4", "C9": "", "C8": "", "C5": "C6"}
    for encoding in ("utf-8", "utf-8-sig", "utf-16"):
        assert thesaurus.read(_write(tmp_path, text, encoding)) == want
    table = thesaurus.read_thesaurus(tmp_path / "thesaurus.tsv")
    assert list(table.columns) == ["term_id", "replace_by"] and dict(table.values.tolist()) == want


def test_header_only_is_an_empty_thesaurus(tmp_path):
    assert thesaurus.read(_write(tmp_path, HEADER)) == {}
    assert thesaurus.read_thesaurus(tmp_path / "thesaurus.tsv").empty


@pytest.mark.parametrize("text, line, says", [
    ("", 1, "header"),
    ("# only a comment\n", 1, "header"),
    ("C1\tC2\n", 1, "header"),
    ("term_id\treplace_by\textra\n", 1, "header"),
    (HEADER + "C1\n", 2, "1 tab-separated cells"),
    (HEADER + "C1\tC2\tC3\n", 2, "3 tab-separated cells"),
    (HEADER + "\tC2\n", 2, "term_id is empty"),
    (HEADER + "C1\tC2\nC5\tC6\nC1\tC3\n", 4, "on line 2"),
    (HEADER + "C1\tC2\nC1\t\n", 3, "on line 2"),
    (HEADER + "C1\tC1\n", 2, "C1 → C1"),
    (HEADER + "C0\tC1\nC1\tC2\nC2\tC3\nC3\tC1\n", 3, "C1 → C2 → C3 → C1 form a cycle (lines 3, 4, 5)"),
])
def test_bad_thesaurus_names_the_line(tmp_path, text, line, says):
    assert says in _fails(_write(tmp_path, text), line).message


def test_a_term_on_two_lines_names_both(tmp_path):
    err = _fails(_write(tmp_path, HEADER + "C1\tC2\nC1\tC3\n"), 3)
    assert err.details["first_line"] == 2


def test_missing_folder_and_bad_bytes(tmp_path):
    _fails(tmp_path / "none.tsv", None, code="THESAURUS_MISSING")
    (tmp_path / "dir.tsv").mkdir()
    _fails(tmp_path / "dir.tsv", None, code="FILE_INVALID")
    path = tmp_path / "thesaurus.tsv"
    path.write_bytes(HEADER.encode() + b"C1\tcaf\xe9\n")
    assert _fails(path, None, code="FILE_ENCODING").details["line"] == 2


def test_vosviewer_header_reads_the_same(tmp_path):
    ours = thesaurus.read(_write(tmp_path, HEADER + "a\tb\nc\t\n"))
    for header in ("label\treplace by\n", "Label\tReplace By\n", "label\treplace  by\n"):
        assert thesaurus.read(_write(tmp_path, header + "a\tb\nc\t\n")) == ours == {"a": "b", "c": ""}
    assert "VOSviewer" in _fails(_write(tmp_path, "label\treplace_with\na\tb\n"), 1).message


@pytest.fixture(scope="module")
def donners():
    return bundle_from_works(read_work_objects(DONNERS))


def _variants(bundle):
    """Two author IDs whose different labels share a surname and a first initial, each label one ID's."""
    a = bundle.authorships.dropna(subset=["author_id", "author_name"])[["author_id", "author_name"]].drop_duplicates()
    a = a[a.groupby("author_name")["author_id"].transform("nunique") == 1]
    a = a.assign(key=a["author_name"].map(lambda n: (n.split()[-1].lower(), n[0].lower())))
    for _key, group in a.groupby("key"):
        if group["author_id"].nunique() == 2 and group["author_name"].nunique() == 2:
            return group.sort_values("author_id").values.tolist()
    pytest.fail("no author variants in the corpus")


def _works(bundle, table, column, value):
    rows = getattr(bundle, table)
    return set(rows.loc[rows[column] == value, "work_id"])


def test_author_variants_merge_into_one_node_by_label(donners, tmp_path):
    (keep_id, keep_name, _), (gone_id, gone_name, _) = _variants(donners)
    path = _write(tmp_path, f"label\treplace by\n{gone_name.upper()}\t{keep_name}\n")
    plain = build("coauthorship", donners, {}, FAST)
    merged = build("coauthorship", donners, {"thesaurus": str(path)}, FAST)
    assert {keep_id, gone_id} <= set(plain.nodes["node_id"])
    nodes = merged.nodes.set_index("node_id")
    assert gone_id not in nodes.index and len(nodes) == len(plain.nodes) - 1
    both = _works(donners, "authorships", "author_id", keep_id) | _works(donners, "authorships", "author_id", gone_id)
    assert nodes.loc[keep_id, "occurrences"] == len(both) and nodes.loc[keep_id, "label"] == keep_name
    assert len(merged.metrics["notes"]["thesaurus_sha256"]) == 64
    coauthor = donners.authorships[donners.authorships["work_id"].isin(_works(donners, "authorships", "author_id",
                                                                               gone_id))]
    other = sorted(set(coauthor["author_id"].dropna()) - {keep_id, gone_id})[0]
    docs = edge_evidence("coauthorship", donners, min(keep_id, other), max(keep_id, other), {"thesaurus": str(path)})
    assert set(docs["work_id"]) >= _works(donners, "authorships", "author_id", gone_id) & \
        _works(donners, "authorships", "author_id", other)


def test_author_ids_merge_and_drop_with_our_header(donners, tmp_path):
    (keep_id, _, _), (gone_id, _, _) = _variants(donners)
    dropped = sorted(set(donners.authorships["author_id"].dropna()) - {keep_id, gone_id})[0]
    path = _write(tmp_path, f"{HEADER}{gone_id}\t{keep_id}\n{dropped}\t\n")
    nodes = build("coauthorship", donners, {"thesaurus": str(path)}, FAST).nodes.set_index("node_id")
    assert gone_id not in nodes.index and dropped not in nodes.index
    assert nodes.loc[keep_id, "occurrences"] == len(_works(donners, "authorships", "author_id", keep_id)
                                                    | _works(donners, "authorships", "author_id", gone_id))


def test_institutions_of_one_name_merge(donners, tmp_path):
    aff = donners.affiliations
    counts = aff.groupby("institution_name")["institution_id"].nunique()
    name = counts[counts > 1].sort_index().index[0]
    ids = set(aff.loc[aff["institution_name"] == name, "institution_id"])
    target = sorted(ids)[-1]
    path = _write(tmp_path, f"label\treplace by\n{name}\t{target}\n")   # every institution of that name
    nodes = build("institutions", donners, {"thesaurus": str(path)}, FAST).nodes
    named = nodes[nodes["label"] == name]
    assert len(named) == 1 and named["node_id"].iloc[0] == target
    assert named["occurrences"].iloc[0] == len(set(aff.loc[aff["institution_id"].isin(ids), "work_id"]))


def test_thesauri_are_inputs_of_their_network_and_bibliography_jobs(tmp_path):
    filled = spec.validate({"source": {"kind": "files", "files": ["works.zip"]}, "seed": {"ids": ["W1"]},
                            "networks": {"coauthorship": {"thesaurus": "authors.tsv"}, "institutions": {},
                                         "keywords": {"thesaurus": "terms.tsv"}}})
    want = {"coauthorship": [str(tmp_path / "authors.tsv")], "institutions": [],
            "keywords": [str(tmp_path / "terms.tsv")]}
    for rule in ("network", "export"):
        assert {kind: registry.external_inputs(filled, rule, kind, tmp_path).get("thesaurus")
                for kind in want} == want
    filled["export"]["formats"] = ["csv"]
    assert registry.external_inputs(filled, "export", "coauthorship", tmp_path) == {}
