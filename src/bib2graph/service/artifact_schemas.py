"""The shape of each JSON artifact the read verbs and the report rely on, as JSON Schema (docs/artifacts.md).

`validate` checks every JSON artifact on disk against its schema, so a metrics.json edited to `{}` or a
prisma.json holding `"x"` is reported before a read verb or the report trips on it. The schemas say what
the readers need (keys, types, counts that cannot be negative); keys they do not read may be added freely.
"""

from __future__ import annotations

from fnmatch import fnmatch
from typing import Any

_COUNT = {"type": "integer", "minimum": 0}
_NUMBER = {"type": "number"}
_MAYBE_NUMBER = {"type": ["number", "null"]}
_MAYBE_COUNT = {"type": ["integer", "null"], "minimum": 0}
_FRACTION = {"type": ["number", "null"], "minimum": 0, "maximum": 1}


def _object(required: dict[str, Any], **optional: Any) -> dict[str, Any]:
    return {"type": "object", "required": sorted(required), "properties": {**required, **optional}}


_PEOPLE = _object({"to_screen": _COUNT, "screened": _COUNT, "not_screened": _COUNT, "included": _COUNT,
                   "excluded": _COUNT, "stopping_rule": {"type": "string"}, "recall_target": _FRACTION,
                   "confidence": _FRACTION, "rule_fired_after": _MAYBE_COUNT, "verdict": {"type": "string"}})

PRISMA = _object({"identified": _object({"seeds": _COUNT, "total": _COUNT,
                                         "rounds": {"type": "array", "items": {"type": "object"}}}),
                  "duplicates_removed": _COUNT, "screened": _COUNT,
                  "excluded_by_filter": {"type": "object", "additionalProperties": _COUNT},
                  "excluded_by_people": _COUNT, "reinstated_by_people": _COUNT, "included": _COUNT,
                  "people": _PEOPLE},
                 sources=_object({"records": _COUNT, "duplicates_removed": _COUNT,
                                  "files": {"type": "array", "items": _object({"file": {"type": "string"},
                                                                               "records": _COUNT,
                                                                               "duplicates": _COUNT})}}))

_LIST = {"type": ["array", "null"]}
_CLUSTER = _object({"cluster": {"type": "integer"}, "size": _COUNT},
                   terms={"type": ["array", "null"], "items": {"type": ["object", "string"]}},
                   central=_LIST, cited=_LIST, top_nodes=_LIST)

NETWORK_METRICS = _object({"kind": {"type": "string"}, "directed": {"type": "boolean"}, "nodes": _COUNT,
                           "edges": _COUNT, "components": _COUNT, "density": _NUMBER,
                           "n_clusters": _COUNT, "modularity": _MAYBE_NUMBER, "silhouette": _MAYBE_NUMBER,
                           "clusters": {"type": "array", "items": _CLUSTER},
                           "definition": {"type": "string"}, "parameters": {"type": "object"}})

STABILITY = _object({"kind": {"type": "string"}, "clusters_reproducible": {"type": ["boolean", "null"]},
                     "reproducibility": {"type": ["string", "null"]},
                     "stability": _object({"runs": _COUNT, "requested_runs": _COUNT,
                                           "seeds": {"type": "array", "items": {"type": "integer"}},
                                           "mean_ari": _MAYBE_NUMBER, "min_ari": _MAYBE_NUMBER})})

_RUN = _object({"seed": {"type": "integer"}, "to_screen": _COUNT, "includes": _COUNT, "wss95": _MAYBE_NUMBER,
                "recall_at_10": _FRACTION, "stopped_at": _MAYBE_COUNT})

SIMULATION = _object({"labels": _object({"rows": _COUNT, "matched": _COUNT, "includes": _COUNT,
                                         "excludes": _COUNT}),
                      "priors": _COUNT, "seeds": {"type": "array", "items": {"type": "integer"}},
                      "runs": {"type": "array", "items": _RUN},
                      "mean": {"type": "object"},
                      "stopping": _object({"runs": _COUNT, "stopped": _COUNT, "target_met": _COUNT})})

# (path pattern under the workspace, schema); the first pattern that matches a path applies
_BY_PATH = [("results/corpus/prisma.json", PRISMA),
            ("results/networks/*/graph/metrics.json", NETWORK_METRICS),
            ("results/networks/*/metrics.json", NETWORK_METRICS),
            ("results/networks/*/stability/stability.json", STABILITY),
            ("results/screening/simulation.json", SIMULATION)]


def schema_for(relative: str) -> dict[str, Any] | None:
    """The schema of the JSON artifact at `relative` (a path under the workspace), or None when the
    artifact is read by no verb (manifests have their own check; exports are for other tools)."""
    for pattern, schema in _BY_PATH:
        if fnmatch(relative, pattern) and relative.count("/") == pattern.count("/"):
            return schema
    return None


def shape_problem(found: Any, schema: dict[str, Any]) -> tuple[str, str] | None:
    """(where, what) of the first place `found` breaks `schema` (JSON Schema 2020-12), or None."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(schema).iter_errors(found))
    if error is None:
        return None
    return "/".join(str(part) for part in error.absolute_path) or "the top level", error.message
