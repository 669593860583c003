"""No spec that `b2g validate` accepts fails in a job on a spec check.

Specs are drawn from the spec's own JSON Schema (a small strategy builder below: hypothesis-jsonschema
does not work with current hypothesis), with values at and past the bounds. Each one goes through
the preflight's spec checks; when they accept it, the jobs' own code runs on it over a small real
corpus (screening, chaining, every network with its community detection, every export format), and
none may refuse a parameter. Specs the checks refuse must be refused with a SpecError naming a place.
"""

from __future__ import annotations

import json
import os
import string

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bib2graph import checks, registry, spec as spec_mod
from bib2graph.chain import chain
from bib2graph.cited import cited_works, look_up
from bib2graph.corpus import build_corpus
from bib2graph.errors import B2GError, SpecError
from bib2graph.export import write_csv, write_gexf, write_graphml, write_pajek, write_vosviewer
from bib2graph.networks import build
from bib2graph.networks.layout import layout
from bib2graph.tables import CANDIDATES, SEEDS, conform

from ..conftest import DEMO_LABELS, included_ids

EXAMPLES = int(os.environ.get("B2G_SPEC_EXAMPLES", "10"))   # `make fuzz` draws 300
EXPRESSIONS = ["rat*", '"object recognition" OR context', "NOT review AND (mouse OR rat)", "rat AND (", "",
               "OR", "memory*"]


def _resolve(sub: dict, root: dict) -> dict:
    while "$ref" in sub:
        node = root
        for part in sub["$ref"].lstrip("#/").split("/"):
            node = node[part]
        sub = node
    return sub


def _number(sub: dict, integer: bool) -> st.SearchStrategy:
    """Mostly values inside the bounds, sometimes on them or just past them."""
    low = sub.get("minimum", sub.get("exclusiveMinimum", 0))
    high = sub.get("maximum", 60)
    edges = st.sampled_from([low - 1, low, high, high + 1, -1, 0] if integer else [0.0, 1e-9, -1.0, float("inf")])
    inside = st.integers(low, high) if integer else st.floats(min_value=low, max_value=high, allow_nan=False)
    return st.one_of(inside, inside, inside, edges)


def from_schema(sub: dict, root: dict, name: str = "") -> st.SearchStrategy:
    """A strategy for values of the schema `sub`: valid ones mostly, and some just past a bound."""
    sub = _resolve(sub, root)
    if "enum" in sub:
        return st.sampled_from(sub["enum"])
    types = sub.get("type", "object")
    options = []
    for kind in types if isinstance(types, list) else [types]:
        if kind == "object":
            props = {k: from_schema(v, root, k) for k, v in (sub.get("properties") or {}).items()}
            options.append(st.fixed_dictionaries({}, optional=props))
        elif kind == "array":
            options.append(st.lists(from_schema(sub["items"], root, name), max_size=3,
                                    unique=bool(sub.get("uniqueItems"))))
        elif kind in ("integer", "number"):
            options.append(_number(sub, kind == "integer"))
        elif kind == "boolean":
            options.append(st.booleans())
        elif kind == "null":
            options.append(st.none())
        elif kind == "string":
            if name in ("include", "exclude"):
                options.append(st.sampled_from(EXPRESSIONS))
            elif "pattern" in sub:
                options.append(st.from_regex(sub["pattern"], fullmatch=True))
            else:
                options.append(st.text(string.ascii_letters + " ", max_size=12))
    return st.one_of(options)


def _grounded(drawn: dict, demo_zip) -> dict:
    """The drawn spec with its file names pointed at real files (the preflight checks files apart)."""
    drawn = json.loads(json.dumps(drawn))
    source = drawn.setdefault("source", {})
    if source.get("kind", "files") == "files":
        source["files"] = [str(demo_zip)]
    else:
        source.pop("files", None)
    seed = drawn.setdefault("seed", {})
    seed["files"] = []
    if not seed.get("ids") and not seed.get("dois"):
        seed["ids"] = ["W1"]
    if isinstance(drawn.get("networks", {}).get("keywords"), dict):
        drawn["networks"]["keywords"]["thesaurus"] = None
    return drawn


def _accepted(spec: dict) -> bool:
    """The preflight's spec checks: the schema, then every job's checks on the params its rule gets."""
    try:
        filled = spec_mod.validate(spec)
        for job in registry.jobs(filled):
            checks.check(job.rule, json.loads(job.params))
    except SpecError as exc:
        assert exc.details.get("place"), exc.message   # a refusal says where to fix the spec
        return False
    except B2GError as exc:
        assert exc.code.startswith("SPEC"), (exc.code, exc.message)
        return False
    return True


@pytest.fixture(scope="module")
def seeds(demo_universe):
    ids = [w for w in included_ids(DEMO_LABELS) if w in demo_universe.ids][:12]
    return conform(__import__("pandas").DataFrame({"work_id": ids, "seeded_by": "id"}), SEEDS)


@pytest.mark.long
@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(drawn=from_schema(spec_mod.schema(), spec_mod.schema()))
def test_a_spec_the_checks_accept_runs_in_every_job(drawn, demo_universe, seeds, tmp_path_factory):
    from ..conftest import DEMO_ZIP

    drawn = _grounded(drawn, DEMO_ZIP)
    if not _accepted(drawn):
        return
    spec = spec_mod.validate(drawn)
    spec["chain"]["depth"] = min(spec["chain"]["depth"], 1)   # deeper rounds cost time, not coverage
    result = chain(demo_universe, list(seeds["work_id"]), spec["chain"])
    pool = demo_universe.records(list(seeds["work_id"]) + result.admitted)
    candidates = conform(result.candidates, CANDIDATES)
    corpus = build_corpus(pool, seeds, candidates, {}, spec["filter"]).corpus
    cited = None
    if "cocitation" in spec["networks"]:
        given = json.loads(registry.params(spec, "cited"))
        cited = cited_works(pool.works, pool.authorships, pool.references, given["min_citing"],
                            given["labels"]["max_works"],
                            (lambda ids: look_up(demo_universe, ids)) if given["labels"]["fetch"] else None)[0]
    out = tmp_path_factory.mktemp("exports")
    for kind in spec["networks"]:
        params = json.loads(registry.params(spec, "network", kind))
        net = build(kind, corpus, params["network"], params["communities"], cited=cited)
        formats = spec["export"]["formats"]
        drawn_layout = json.loads(registry.params(spec, "layout", kind))["layout"]
        ids = pd.Index(net.nodes["node_id"])
        xy = layout(len(ids), ids.get_indexer(net.edges["source"]), ids.get_indexer(net.edges["target"]),
                    net.edges["weight"].to_numpy(), net.nodes["cluster"].to_numpy(dtype="int64"),
                    algorithm=drawn_layout["algorithm"], seed=drawn_layout["seed"],
                    iterations=min(drawn_layout["iterations"], 20))   # more steps cost time, not coverage
        if "graphml" in formats:
            write_graphml(net, corpus, out / "n.graphml")
            write_graphml(net, corpus, out / "xy.graphml", xy)
        if "gexf" in formats:
            write_gexf(net, corpus, out / "n.gexf", xy)
        if "csv" in formats:
            write_csv(net, out / "nodes.csv", out / "edges.csv")
        if "pajek" in formats:
            write_pajek(net, out / "n.net")
        if "vosviewer" in formats:
            write_vosviewer(net, out / "m.txt", out / "n.txt", out / "v.json", xy)


@pytest.mark.parametrize("edit,place", [
    ({"communities": {"algorithm": "louvain", "objective": "cpm"}}, "communities.objective"),
    ({"networks": {"coupling": {"min_weight": 0}}}, "networks.coupling.min_weight"),
    ({"communities": {"resolution": float("inf")}}, "communities.resolution"),
    ({"communities": {"seed": -1}}, "communities.seed"),
    ({"filter": {"include": "rat AND ("}}, "filter.include"),
    ({"filter": {"year_min": 2020, "year_max": 2010}}, "filter.year_min"),
    ({"seed": {"ids": [], "query": "memory"}}, "seed.query"),
    ({"seed": {"ids": []}}, "seed"),
    ({"source": {"kind": "files", "files": []}}, "source.files"),
    ({"seed": {"ids": ["W1"], "files": ["seeds.txt"]}}, "seed.files.0"),
])
def test_what_a_job_would_refuse_is_refused_with_its_place(edit, place):
    drawn = {"source": {"files": ["x.zip"]}, "seed": {"ids": ["W1"]}}
    for section, values in edit.items():
        drawn[section] = {**drawn.get(section, {}), **values}
    with pytest.raises(SpecError) as info:
        filled = spec_mod.validate(drawn)
        for job in registry.jobs(filled):
            checks.check(job.rule, json.loads(job.params))
    assert info.value.details["place"] == place
    assert info.value.exit_code == 2
