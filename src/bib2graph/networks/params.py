"""The parameters of a network and of its community detection: defaults and checks.

The defaults are read from the spec's schema (`workflow/schemas/spec.schema.yaml`), the one place
that states them; these functions add the checks a schema cannot state (a finite resolution, CPM only
with Leiden, no weighting of the unweighted citation network). The network jobs call them before any
work, and the preflight of `b2g validate` / `b2g run` calls the same functions, so a spec that
validates never fails in a job on a parameter. Light on purpose: no numpy, no igraph.
"""

from __future__ import annotations

import math
import os
from functools import lru_cache

from ..errors import SpecError

KINDS = ("coupling", "cocitation", "citation", "coauthorship", "institutions", "keywords")
NORMALIZATIONS = ("raw", "association", "association_vos", "salton", "jaccard", "inclusion", "equivalence")
COUNTINGS = ("full", "fractional")
#: the term fields a keywords network may count (networks.terms.select_terms; the spec schema's enum)
FIELDS = ("auto", "keywords", "topics", "concepts", "author_keywords", "index_keywords", "mesh", "all_keywords")
ALGORITHMS = ("leiden", "louvain")
OBJECTIVES = ("modularity", "cpm")
LABEL_FIELDS = ("title", "abstract", "keywords", "concepts", "topics")


@lru_cache(maxsize=1)
def _defaults() -> tuple[dict[str, dict], dict, dict]:
    from ..spec import schema_defaults

    networks = schema_defaults("networks")
    return ({kind: schema_defaults("networks", kind) for kind in networks},
            schema_defaults("communities"), schema_defaults("metrics"))


def network_defaults() -> dict[str, dict]:
    """kind → its parameters' defaults (a fresh copy)."""
    return {kind: dict(p) for kind, p in _defaults()[0].items()}


def community_defaults() -> dict:
    """The community-detection defaults; the `labels` subsection is the clusters job's (`label_defaults`)."""
    return {k: v for k, v in _defaults()[1].items() if k != "labels"}


def label_defaults() -> dict:
    return dict(_defaults()[1]["labels"])


def detection(communities: dict | None) -> dict:
    """The spec's `communities` section without `labels`: what a network job is given, so that naming
    clusters differently never clusters again."""
    return {k: v for k, v in (communities or {}).items() if k != "labels"}


#: the `communities` settings that say how the stability score is measured, not how clusters are found
STABILITY_SETTINGS = ("stability_runs", "stability_max_edges")


def without_stability(communities: dict) -> dict:
    """`communities` without `STABILITY_SETTINGS`: what the network job clusters by, so that measuring
    stability differently never clusters again (the stability job measures it)."""
    return {k: v for k, v in communities.items() if k not in STABILITY_SETTINGS}


def resolve_labels(params: dict | None) -> dict:
    """`communities.labels` with the defaults filled in; unknown keys and bad values are a SpecError."""
    defaults = label_defaults()
    params = dict(params or {})
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise _invalid(f"unknown cluster label setting(s) {unknown}; known: {sorted(defaults)}", unknown[0],
                       f"communities.labels.{unknown[0]}")
    out = {**defaults, **params}
    fields = out["fields"]
    checks = [
        ("by", out["by"] in ("terms", "members"), "one of ['terms', 'members']"),
        ("method", out["method"] in ("llr", "ctfidf"), "one of ['llr', 'ctfidf']"),
        ("fields", isinstance(fields, list) and bool(fields) and set(fields) <= set(LABEL_FIELDS),
         f"a non-empty list of {list(LABEL_FIELDS)}"),
        ("ngrams", _is_count(out["ngrams"], 1) and out["ngrams"] <= 4, "an integer from 1 to 4"),
        ("min_works", _is_count(out["min_works"], 1), "an integer >= 1"),
        ("terms", _is_count(out["terms"], 1), "an integer >= 1"),
        ("label_terms", _is_count(out["label_terms"], 1), "an integer >= 1"),
        ("stop_words", isinstance(out["stop_words"], list) and all(isinstance(w, str) for w in out["stop_words"]),
         "a list of strings"),
    ]
    _require(checks, out, "communities.labels")
    return {**out, "fields": [f for f in LABEL_FIELDS if f in fields], "stop_words": sorted(set(out["stop_words"]))}


def metric_defaults() -> dict[str, dict]:
    """metric → its settings' defaults (a fresh copy)."""
    return {name: dict(p) for name, p in _defaults()[2].items()}


def _invalid(message: str, key: str, place: str) -> SpecError:
    return SpecError(message, code="NETWORK_PARAMS_INVALID", details={"key": key, "place": place})


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_count(value, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _require(checks: list[tuple[str, bool, str]], values: dict, place: str) -> None:
    """Raise for the first (key, ok, what it must be) that is not ok."""
    for key, ok, wanted in checks:
        if not ok:
            raise _invalid(f"{place}.{key} must be {wanted}, not {values[key]!r}", key, f"{place}.{key}")


def resolve_params(kind: str, params: dict | None) -> dict:
    """The kind's parameters with the defaults filled in; unknown keys and bad values are a SpecError."""
    if kind not in KINDS:
        raise _invalid(f"unknown network kind {kind!r}; known: {list(KINDS)}", kind, f"networks.{kind}")
    place = f"networks.{kind}"
    defaults = network_defaults()[kind]
    params = dict(params or {})
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise _invalid(f"unknown parameter(s) {unknown} for the {kind} network; known: {sorted(defaults)}",
                       unknown[0], f"{place}.{unknown[0]}")
    out = {**defaults, **params}
    checks = [
        ("min_occurrences", _is_count(out["min_occurrences"], 0), "an integer >= 0"),
        ("min_weight", _is_number(out["min_weight"]) and out["min_weight"] > 0, "a finite number > 0"),
        ("normalization", out.get("normalization", "raw") in NORMALIZATIONS, f"one of {list(NORMALIZATIONS)}"),
        ("counting", out.get("counting", "full") in COUNTINGS, f"one of {list(COUNTINGS)}"),
        ("field", out.get("field", "auto") in FIELDS, f"one of {list(FIELDS)}"),
        ("thesaurus", out.get("thesaurus") is None or isinstance(out["thesaurus"], (str, os.PathLike)),
         "a path or null"),
    ]
    _require(checks, out, place)
    if out.get("thesaurus") is not None:
        out["thesaurus"] = os.fspath(out["thesaurus"])
    out.setdefault("normalization", "raw")   # citation: unweighted, so raw and not a parameter
    return out


def resolve_communities(params: dict | None) -> dict:
    """Community parameters with the defaults filled in; unknown keys or bad values are a SpecError."""
    defaults = community_defaults()
    params = detection(params)
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise _invalid(f"unknown community parameter(s) {unknown}; known: {sorted(defaults)}",
                       unknown[0], f"communities.{unknown[0]}")
    out = {**defaults, **params}
    checks = [
        ("algorithm", out["algorithm"] in ALGORITHMS, f"one of {list(ALGORITHMS)}"),
        ("objective", out["objective"] in OBJECTIVES, f"one of {list(OBJECTIVES)}"),
        ("resolution", _is_number(out["resolution"]) and out["resolution"] > 0, "a finite number > 0"),
        ("seed", _is_count(out["seed"], 0), "an integer >= 0"),
        ("stability_runs", _is_count(out["stability_runs"], 1), "an integer >= 1"),
        ("iterations", _is_count(out["iterations"], 1), "an integer >= 1"),
        ("stability_max_edges", out["stability_max_edges"] is None or _is_count(out["stability_max_edges"], 0),
         "an integer >= 0 or null"),
    ]
    _require(checks, out, "communities")
    if out["algorithm"] == "louvain" and out["objective"] != "modularity":
        raise _invalid("communities.objective: louvain optimises modularity only; use algorithm 'leiden' for "
                       "the 'cpm' objective", "objective", "communities.objective")
    out["resolution"] = float(out["resolution"])
    return out


def resolve_metrics(params: dict | None) -> dict[str, dict]:
    """The node-metric settings (section `metrics`) with the defaults filled in; bad values are a SpecError."""
    defaults = metric_defaults()
    params = dict(params or {})
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise _invalid(f"unknown metric(s) {unknown}; known: {sorted(defaults)}", unknown[0], f"metrics.{unknown[0]}")
    out = {}
    for name, default in defaults.items():
        given = dict(params.get(name) or {})
        extra = sorted(set(given) - set(default))
        if extra:
            raise _invalid(f"unknown setting(s) {extra} of metrics.{name}; known: {sorted(default)}", extra[0],
                           f"metrics.{name}.{extra[0]}")
        out[name] = {**default, **given}
        _require([("enabled", isinstance(out[name]["enabled"], bool), "true or false")], out[name], f"metrics.{name}")
    between = out["betweenness"]
    _require([("exact_below", _is_count(between["exact_below"], 0), "an integer >= 0"),
              ("samples", between["samples"] is None or _is_count(between["samples"], 1), "an integer >= 1 or null"),
              ("budget", between["budget"] is None or _is_count(between["budget"], 1), "an integer >= 1 or null")],
             between, "metrics.betweenness")
    return out
