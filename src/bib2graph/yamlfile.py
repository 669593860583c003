"""The research spec's YAML, read strictly: a person edits it, so what PyYAML quietly accepts is refused.

Each of these is a SpecError whose message starts with ``file:line:``: a key given twice in one mapping
(PyYAML keeps the last), anchors and aliases (a few lines of them expand into a tree of any size, and a
spec has no need of them), tags (``!!set``; PyYAML crashes on some), merge keys, a key that is not text
(``1:``, ``yes:``), nesting deeper than ``MAX_DEPTH``, a value PyYAML cannot build (``2020-13-45``, an
integer of 5,000 digits), a top level that is not a mapping; so is an empty file. The file must be
UTF-8 (a BOM is fine), since Snakemake reads the same file as UTF-8 when the workflow runs. A folder or
an unreadable file at its place is a WorkspaceError.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from . import textio
from .errors import SpecError, WorkspaceError

MAX_DEPTH = 32
_MERGE = "tag:yaml.org,2002:merge"


def _error(where: str | Path, line: int, message: str, code: str | None = None) -> SpecError:
    return SpecError(f"{where}:{line}: {message}", code=code,
                     details={"key": "(file)", "place": f"{where}:{line}", "file": str(where), "line": line})


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader without anchors, aliases, tags, merge keys, duplicate keys or deep nesting."""

    def __init__(self, text: str, where: str | Path) -> None:
        super().__init__(text)
        self.where, self.depth = where, 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        line = event.start_mark.line + 1
        if getattr(event, "anchor", None) is not None:
            raise _error(self.where, line, f"YAML anchors and aliases (&{event.anchor}, *{event.anchor}) are not "
                                           "allowed in a research spec; write the value out in full")
        if getattr(event, "tag", None) is not None:  # PyYAML's builders crash on some (!!timestamp 1)
            raise _error(self.where, line, f"YAML tags ({event.tag}) are not allowed in a research spec; write "
                                           "the plain value")
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise _error(self.where, line, f"nested more than {MAX_DEPTH} levels deep; a spec needs a few")
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as exc:  # PyYAML lets these through from int(), datetime(), …
            kind = node.tag.rsplit(":", 1)[-1]
            raise _error(self.where, node.start_mark.line + 1,
                         f"{str(node.value)[:80]!r} cannot be read as {kind} ({exc})") from None

    def construct_mapping(self, node, deep=False):
        seen: dict[str, int] = {}
        for key_node, _ in node.value:
            line = key_node.start_mark.line + 1
            if key_node.tag == _MERGE:
                raise _error(self.where, line, "merge keys (<<) are not allowed in a research spec; write the "
                                               "keys out in full")
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise _error(self.where, line, f"a key here reads as a {type(key).__name__}, but keys are names; "
                                               "quote it if it is one (\"1\": …, \"yes\": …)")
            first = seen.get(key)
            if first is not None:
                raise _error(self.where, line, f"key {key!r:.80} appears twice in one mapping (lines {first} "
                                               f"and {line}); keep one of them")
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def _read(path: Path, where: str | Path, max_bytes: int) -> str:
    """The text of the spec file, at most `max_bytes` of UTF-8; opened without blocking and read only when
    it is a regular file, so that a FIFO or a device in its place cannot hang or flood the call."""
    try:
        data = textio.head_of_file(path, max_bytes)
    except textio.NotAFile:
        raise WorkspaceError(f"{where} is not a regular file (a device, a FIFO or a socket); put the research "
                             "spec there, or run `b2g init --force`", code="SPEC_UNREADABLE",
                             details={"file": str(where)}) from None
    except FileNotFoundError:
        raise SpecError(f"no research spec at {where}; create one with `b2g init`", code="SPEC_MISSING",
                        details={"key": "(file)", "place": str(where), "file": str(where)}) from None
    except IsADirectoryError:
        raise WorkspaceError(f"{where} is a folder, not a research spec; move it away, then `b2g init --force`",
                             code="SPEC_UNREADABLE", details={"file": str(where)}) from None
    except OSError as exc:
        raise WorkspaceError(f"{where} cannot be read ({exc.strerror or exc}); check its permissions",
                             code="SPEC_UNREADABLE", details={"file": str(where)}) from None
    if len(data) > max_bytes:
        raise SpecError(f"{where} is larger than {max_bytes} bytes, the most a research spec may be",
                        details={"key": "(file)", "place": str(where), "file": str(where)})
    codec, _ = textio.detect(data)
    if codec != "utf-8":
        raise _error(where, 1, f"saved as {codec.upper()}; Snakemake reads the spec as UTF-8, so save it as UTF-8",
                     code="FILE_ENCODING")
    return textio.decode(data, where)


def _syntax_error(where: str | Path, text: str, exc: yaml.YAMLError) -> SpecError:
    """A SpecError at the line and column PyYAML points to."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is not None:
        line, column = mark.line + 1, mark.column + 1
    else:  # a ReaderError (a character YAML does not allow) knows its offset only
        position = getattr(exc, "position", 0)
        line = text.count("\n", 0, position) + 1
        column = position - text.rfind("\n", 0, position)
    if isinstance(exc, yaml.reader.ReaderError):
        problem = f"character #x{exc.character:04X} is not allowed ({exc.reason})"
    else:
        problem = getattr(exc, "problem", None) or str(exc)
    return _error(where, line, f"not valid YAML at line {line}, column {column}: {problem}")


def _lines(node: yaml.Node, at: tuple, out: dict[tuple, int]) -> None:
    """The line of every value under `node` (at path `at`: mapping keys, sequence indices): a key's own
    line for a mapping's value, so that a message about `chain.depth` points at `depth:`."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value in node.value:
            path = (*at, key_node.value)
            out[path] = key_node.start_mark.line + 1
            _lines(value, path, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            out[(*at, index)] = item.start_mark.line + 1
            _lines(item, (*at, index), out)


def _mapping(loader: _StrictLoader, where: str | Path, lines: dict[tuple, int] | None) -> dict[str, Any]:
    """The single document `loader` holds, which must be a mapping; `lines` gets its values' lines."""
    try:
        node = loader.get_single_node()
        if node is None:
            raise SpecError(f"{where} is empty; `b2g init --force` writes the template",
                            details={"key": "(file)", "place": str(where), "file": str(where)})
        if not isinstance(node, yaml.MappingNode):
            raise _error(where, node.start_mark.line + 1, "a research spec is a mapping of keys to values "
                                                          "(`key: value` lines), not a single value or a list")
        document = loader.construct_document(node)     # refuses a key that is not text (`? [a, b]`) first
        if lines is not None:
            _lines(node, (), lines)
        return document
    finally:
        loader.dispose()


def read_mapping(path: str | Path, max_bytes: int, where: str | Path | None = None,
                 lines: dict[tuple, int] | None = None) -> dict[str, Any]:
    """The mapping at the top of the YAML file `path`; `where` names it in messages (default: the path).
    `lines`, when given, gets the line of every value by its path (`_lines`)."""
    path = Path(path)
    where = where or path
    text = _read(path, where, max_bytes)
    try:
        return _mapping(_StrictLoader(text, where), where, lines)
    except yaml.YAMLError as exc:
        raise _syntax_error(where, text, exc) from None
