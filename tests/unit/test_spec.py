import copy

import pytest
import yaml

from bib2graph import spec
from bib2graph.errors import SpecError
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
