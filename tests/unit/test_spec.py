import copy
import os

import pytest
import yaml

from bib2graph import spec
from bib2graph.errors import DataError, SpecError, WorkspaceError
from bib2graph.paths import workflow_dir

from ..conftest import ROOT


def test_defaults_fill_every_section():
    filled = spec.validate({"source": {"files": ["x.zip"]}, "seed": {"ids": ["W1"]}})
    assert filled["chain"] == {"direction": "both", "depth": 1, "max_candidates": 1000, "min_links": 1,
                               "max_citing": None, "min_new": 0}
    assert sorted(filled["networks"]) == ["citation", "coauthorship", "cocitation", "coupling",
                                          "institutions", "keywords"]
    assert filled["networks"]["keywords"]["field"] == "auto"
    assert filled["networks"]["coauthorship"]["counting"] == "full"
    assert filled["communities"]["seed"] == 42


def test_listed_networks_only_are_built():
    filled = spec.validate({"networks": {"coupling": {"min_weight": 2}}})
    assert list(filled["networks"]) == ["coupling"]
    assert filled["networks"]["coupling"] == {"min_weight": 2, "min_occurrences": 0, "normalization": "raw"}


def test_unknown_key_names_key_and_place():
    with pytest.raises(SpecError) as info:
        spec.validate({"networks": {"coupling": {"min_wieght": 2}}})
    assert info.value.details["key"] == "min_wieght"
    assert info.value.details["place"] == "networks.coupling.min_wieght"
    assert "min_weight" in info.value.message  # says what is allowed


def test_wrong_type_names_place():
    with pytest.raises(SpecError) as info:
        spec.validate({"chain": {"depth": "two"}})
    assert info.value.details["place"] == "chain.depth"
    assert info.value.exit_code == 2


def test_validation_does_not_mutate_input():
    raw = {"seed": {"ids": ["W1"]}}
    before = copy.deepcopy(raw)
    spec.validate(raw)
    assert raw == before


def test_repo_spec_is_valid():
    loaded = spec.load(ROOT / "config" / "research.yaml")
    assert loaded["source"]["kind"] == "files"
    assert (workflow_dir() / "schemas" / "spec.schema.yaml").is_file()


@pytest.mark.parametrize("section", ["source", "seed"])
def test_an_empty_file_name_is_refused_at_its_place(section):
    """`source.files: [""]` was read as the workspace folder: "  (source.files.0) is a folder"."""
    given = {"source": {"kind": "files", "files": ["a.ris"]}, "seed": {"all": True}}
    given[section]["files"] = [""] if section == "source" else ["a.bib", ""]
    with pytest.raises(SpecError) as info:
        spec.validate(given)
    assert f"{section}.files." in info.value.message and "non-empty" in info.value.message


def test_yaml_error_reports_line(tmp_path):
    path = tmp_path / "research.yaml"
    path.write_text("seed:\n  ids: [W1\n", encoding="utf-8")
    with pytest.raises(SpecError) as info:
        spec.load(path)
    assert "line" in info.value.message


def test_part_is_canonical():
    a = spec.validate({"chain": {"depth": 2, "direction": "forward"}})
    b = spec.validate(yaml.safe_load("chain: {direction: forward, depth: 2}"))
    assert spec.part(a, "chain") == spec.part(b, "chain")
    assert spec.part(a, "chain") != spec.part(spec.validate({}), "chain")


# ------------------------------------------------------------------------------------------------
# The spec file is read strictly: errors name the file and the line


def _load_fails(tmp_path, data: bytes, cls=SpecError, code="SPEC_INVALID", line=None):
    path = tmp_path / "research.yaml"
    path.write_bytes(data)
    with pytest.raises(cls) as info:
        spec.load(path)
    err = info.value
    assert type(err) is cls and err.code == code and 2 <= err.exit_code <= 5
    assert err.message.startswith(f"{path}:{line}:" if line else str(path)), err.message
    if line:
        assert err.details["file"] == str(path) and err.details["line"] == line
    return err


@pytest.mark.parametrize("data", [b"", b"\n\n", b"# nothing yet\n  # really\n"])
def test_empty_spec_says_how_to_get_one(tmp_path, data):
    assert "b2g init --force" in _load_fails(tmp_path, data).message


@pytest.mark.parametrize("data, line, says", [
    (b"chain:\n  depth: 1\n  direction: both\n  depth: 2\n", 4, "'depth' appears twice in one mapping (lines 2 and 4)"),
    (b"chain: {depth: 1, depth: 2}\n", 1, "'depth' appears twice"),
    (b"chain: {}\nchain: {depth: 2}\n", 2, "'chain' appears twice"),
    (b"a: &x [1]\nb: *x\n", 1, "anchors and aliases"),
    (b"a: [1]\nb: *x\n", 2, "anchors and aliases"),
    (b"base: &b {depth: 1}\nchain:\n  <<: *b\n", 1, "anchors and aliases"),
    (b"chain:\n  <<: {depth: 1}\n", 2, "merge keys"),
    (b"chain:\n  1: x\n", 2, "reads as a int"),
    (b"yes: 1\n", 1, "reads as a bool"),
    (b"chain: {}\n? [a, b]\n: x\n", 2, "reads as a list"),      # was INTERNAL: the lines were read first
    (b"chain:\n  ? {depth: 1}\n  : x\n", 2, "reads as a dict"),
    (b"chain:\n  depth: 2020-13-45\n", 2, "cannot be read as timestamp"),
    (b"chain:\n  depth: !!int 0x\n", 2, "YAML tags (tag:yaml.org,2002:int)"),
    (b"seed:\n  ids:\n    - !!set W1\n", 3, "YAML tags"),
    (b"!!timestamp 1: x\n", 1, "YAML tags"),
    (b"chain: !foo 1\n", 1, "YAML tags (!foo)"),
    (b"chain:\n  depth: " + b"9" * 5000 + b"\n", 2, "cannot be read as int"),
    (b"chain:\n  depth: 1\n\n- 2\n", 4, "not valid YAML at line 4, column 1"),
    (b"chain:\n  depth: \x07\n", 2, "#x0007"),
    (b"- chain\n", 1, "a mapping of keys to values"),
    (b"\n\n~\n", 3, "a mapping of keys to values"),
    (b"a: " + b"[" * 40 + b"]" * 40 + b"\n", 1, "nested more than"),
])
def test_what_pyyaml_would_let_through_names_the_line(tmp_path, data, line, says):
    assert says in _load_fails(tmp_path, data, line=line).message


def test_alias_bomb_is_refused_before_it_expands(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]"
                                                          for i in range(1, 12)]
    _load_fails(tmp_path, "\n".join(lines).encode(), line=1)


def test_encodings(tmp_path):
    text = "name: café\nchain: {depth: 2}\n"
    path = tmp_path / "research.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert spec.load(path)["name"] == "café"
    err = _load_fails(tmp_path, text.encode("utf-16"), code="FILE_ENCODING", line=1)
    assert "UTF-16" in err.message and "save it as UTF-8" in err.message
    err = _load_fails(tmp_path, text.encode("latin-1"), cls=DataError, code="FILE_ENCODING")
    assert err.details["line"] == 1 and "line 1" in err.message


def test_folder_or_unreadable_spec_is_a_workspace_error(tmp_path, monkeypatch):
    from bib2graph import yamlfile

    (tmp_path / "research.yaml").mkdir()
    with pytest.raises(WorkspaceError) as info:
        spec.load(tmp_path / "research.yaml")
    assert info.value.exit_code == 5 and str(tmp_path / "research.yaml") in info.value.message

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    (tmp_path / "other.yaml").write_text("version: 1\n")
    with monkeypatch.context() as patched:
        patched.setattr(yamlfile.textio.os, "open", refused)
        with pytest.raises(WorkspaceError) as info:
            spec.load(tmp_path / "other.yaml")
    assert info.value.code == "SPEC_UNREADABLE" and "Permission denied" in info.value.message


def test_a_fifo_or_a_device_in_the_specs_place_is_refused_without_waiting(tmp_path):
    """Opened without blocking: a FIFO nobody writes to would hang every verb; /dev/zero would fill memory."""
    os.mkfifo(tmp_path / "research.yaml")
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    for name in ("research.yaml", "zero.yaml"):
        with pytest.raises(WorkspaceError) as info:
            spec.load(tmp_path / name)
        assert info.value.code == "SPEC_UNREADABLE" and "not a regular file" in info.value.message


def test_missing_and_oversized_spec(tmp_path):
    with pytest.raises(SpecError) as info:
        spec.load(tmp_path / "none.yaml")
    assert info.value.code == "SPEC_MISSING" and "b2g init" in info.value.message
    err = _load_fails(tmp_path, b"# " + b"x" * spec.MAX_SPEC_BYTES + b"\n")
    assert "larger than" in err.message


def test_a_bundled_path_stays_inside_the_bundle(tmp_path):
    from bib2graph.errors import SpecError
    from bib2graph.spec import resolve_path

    assert resolve_path(tmp_path, "bundled:synergy/Sep_2021/labels.csv").is_file()
    with pytest.raises(SpecError, match="inside its data folder"):
        resolve_path(tmp_path, "bundled:../../../../../../../../etc/passwd")


@pytest.mark.parametrize("text, line, place", [
    ("name: x\nchain:\n  direction: both\n  depth: one\n", 4, "chain.depth"),
    ("name: x\nnetworks:\n  coupling: {}\n  cupling: {}\n", 4, "networks.cupling"),
    ("name: x\nseed:\n  dois:\n    - 10.1/a\n    - 7\n", 5, "seed.dois.1"),
    ("name: x\nchain:\n  direction: sideways\n", 3, "chain.direction"),
])
def test_a_schema_error_names_the_file_and_the_line(tmp_path, text, line, place):
    """The contract's "Files people edit": `path:line: …`, with details.file and details.line."""
    path = tmp_path / "research.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as info:
        spec.load(path, "config/research.yaml")
    err = info.value
    assert err.message.startswith(f"config/research.yaml:{line}: invalid research spec"), err.message
    assert (err.details["file"], err.details["line"], err.details["place"]) == ("config/research.yaml", line, place)
