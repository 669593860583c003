"""The contract as data: its version, the exit-code table and the JSON Schema of each verb's `data`.

`b2g schema` serves these (with the verbs' parameters, as the verb table describes them:
verbs.described); the tests validate every envelope the suite sees against the same files.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from .. import CONTRACT_VERSION, __version__
from ..errors import INTERNAL_EXIT
from ..paths import contract_dir
from .result import Result

EXIT_CODES = [
    {"exit": 0, "meaning": "success"},
    {"exit": 1, "meaning": "usage inside a command (UsageError); an idempotency key reused for another request "
                           "(IDEMPOTENCY_CONFLICT, not retryable)"},
    {"exit": 2, "meaning": "data: bad spec, unknown ID, corrupt artifact, failed job; Click parse errors (USAGE_ERROR)"},
    {"exit": 3, "meaning": "missing dependency or capability (DependencyError)"},
    {"exit": 4, "meaning": "network: OpenAlex unreachable, throttled or out of budget (NetworkError)"},
    {"exit": 5, "meaning": "workspace missing, locked or unreadable (WorkspaceError); an idempotency key held by a "
                           "call still running (IDEMPOTENCY_IN_PROGRESS, retryable)"},
    {"exit": INTERNAL_EXIT, "meaning": "internal error, a bug (code INTERNAL)"},
]


@lru_cache(maxsize=None)
def schema_of(name: str) -> dict[str, Any]:
    """`envelope` or a verb's data schema, as shipped."""
    return json.loads((contract_dir() / f"{name.replace(' ', '-')}.schema.json").read_text(encoding="utf-8"))


def describe(verbs: dict[str, dict[str, Any]]) -> Result:
    """The whole contract; `verbs` maps each verb to its parameters (verbs.described)."""
    listed = {name: {**spec, "data_schema": schema_of(name)} for name, spec in sorted(verbs.items())}
    return Result(data={"contract": CONTRACT_VERSION, "version": __version__, "exit_codes": EXIT_CODES,
                        "envelope_schema": schema_of("envelope"), "verbs": listed})
