"""Running a verb of the table (service/verbs.py) the same way for every adapter.

`perform` resolves the workspace and runs the verb's call, once per idempotency key when one is given;
`outcome` turns a call into its envelope on every path, bugs included. The CLI prints that envelope, the
MCP server returns it: the same service, idempotency and errors either way.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any, Callable

from ..curation import work_id_of
from ..errors import UsageError
from ..textio import SURROGATE
from .envelope import failure, success
from .result import Result
from .verbs import PLUMBING, Verb
from .workspace import Workspace, resolve


def request_of(params: dict[str, Any]) -> dict[str, Any]:
    """The arguments an idempotency key stands for: every parameter but the plumbing, as JSON values; work
    IDs in the one form the curation file writes (``w1``, ``https://openalex.org/W1`` and ``W1`` are one
    request), in the order given."""
    found = {k: list(v) if isinstance(v, tuple) else v for k, v in sorted(params.items()) if k not in PLUMBING}
    if isinstance(found.get("ids"), list):
        found["ids"] = [work_id_of(i) or i if isinstance(i, str) else i for i in found["ids"]]
    return found


def perform(verb: Verb, params: dict[str, Any], on_line: Callable[[str], None] | None = None,
            ws: Workspace | None = None) -> Result:
    """Run a verb's call in `ws` (default: resolved from --workspace), once per idempotency key when one
    is given."""
    _utf8_only(params)
    if ws is None and verb.workspace:
        ws = resolve(params.get("workspace"))
    key = params.get("idempotency_key")
    if key is None:
        return verb.call(ws, params, on_line)
    from .idempotency import once

    return once(ws, verb.name, key, request_of(params), lambda: verb.call(ws, params, on_line))


def _utf8_only(params: dict[str, Any]) -> None:
    """Refuse an argument that is not text: bytes no UTF-8 decodes (a Latin-1 terminal's "caf\xe9", which
    Python hands over as lone surrogates) cannot be written to curation.tsv or matched against the tables;
    a NUL (an MCP client's "\\u0000") cannot be passed to a process."""
    for name, value in params.items():
        for item in value if isinstance(value, (list, tuple)) else (value,):
            problem = text_problem(item) if isinstance(item, str) else None
            if problem:
                raise UsageError(f"{name} {problem}; pass it as UTF-8 text (e.g. set the terminal's encoding to "
                                 "UTF-8)", details={"parameter": name})


def text_problem(value: str) -> str | None:
    """Why `value` is no text an argument may hold (a lone surrogate, a NUL), or None."""
    if SURROGATE.search(value):
        try:      # bytes a terminal passed (surrogate-escaped), else a JSON client's "\\ud800"
            shown = value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            shown = value.encode("utf-8", "backslashreplace")
        return f"is not valid UTF-8 text ({shown!r:.120})"
    if "\x00" in value:
        return "holds a NUL character"
    return None


def failed(command: str, exc: BaseException) -> dict[str, Any]:
    """The envelope of an error; a bug (INTERNAL) also leaves its traceback on stderr."""
    env = failure(command, exc)
    if env["error"]["code"] == "INTERNAL":
        traceback.print_exc(file=sys.stderr)
    return env


def outcome(command: str, operation: Callable[[], Result]) -> dict[str, Any]:
    """The envelope of one call: its data, or its error."""
    try:
        result = operation()
        return success(command, result.data, result.warnings)
    except (Exception, KeyboardInterrupt) as exc:  # the contract holds on every path, bugs included
        return failed(command, exc)
