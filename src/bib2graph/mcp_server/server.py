"""Serving the tools and resources over stdio with the official MCP SDK (the `mcp` extra, 2.x).

One server serves one workspace, found at start as the CLI finds it. Tool calls run one at a time in a
worker thread (the services change the process's directory while Snakemake runs and are written for
one caller), so a call waits for the one before it. While serving, the SDK points file descriptor 1 at
stderr, so nothing a service or Snakemake prints can reach the protocol on stdout. A long call (a
run, a phase, a restore, monitor) reports Snakemake's "N of M steps" as progress notifications when the
client asked for them (a progress token).
"""

from __future__ import annotations

import importlib
from typing import Any

from .. import __version__
from ..errors import DependencyError
from ..service.envelope import dumps, failure
from ..service.workspace import Workspace

INSTRUCTIONS = ("bib2graph: one tool per `b2g` verb on this server's workspace. Every result is the b2g "
                "envelope (docs/contract.md): `data` on success; on failure `error` with `code`, `message`, "
                "`retryable` and `details`. Writes take an `idempotency_key`: a repeat with the same key and "
                "arguments returns the recorded result without acting again.")


def require_extra() -> None:
    """DependencyError unless the SDK of the `mcp` extra (major 2) can be imported."""
    try:
        sdk = importlib.import_module("mcp")
        importlib.import_module("mcp.server.lowlevel")
    except ImportError as exc:
        raise DependencyError(f"`b2g mcp` needs the MCP extra (mcp cannot be imported: {exc}); install it with: "
                              "pip install 'bib2graph[mcp]'",
                              details={"missing": "mcp", "install": "pip install 'bib2graph[mcp]'"}) from None
    if not hasattr(sdk, "Client"):
        raise DependencyError("`b2g mcp` needs version 2 of the MCP SDK; install it with: "
                              "pip install 'bib2graph[mcp]'", details={"missing": "mcp>=2,<3"})


def build(ws: Workspace):
    """The SDK server for `ws`: its tools, resources and handlers."""
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    from ..service.jobs import read_progress
    from . import resources
    from .tools import call, tools

    table = tools()
    one_at_a_time = anyio.Lock()

    async def list_tools(_ctx, _params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(
            name=tool.name, description=tool.description, input_schema=tool.input_schema,
            annotations=types.ToolAnnotations(read_only_hint=tool.verb.reads,
                                              destructive_hint=False if tool.verb.reads else None,
                                              idempotent_hint=tool.verb.reads or None))
            for tool in table.values()])

    async def call_tool(ctx, params) -> types.CallToolResult:
        tool = table.get(params.name)
        if tool is None:
            from ..errors import UsageError

            env = failure(params.name, UsageError(f"no tool {params.name!r}; tools/list names them",
                                                  code="NOT_FOUND", details={"tools": sorted(table)}))
        else:
            on_line = _progress(ctx, read_progress) if tool.verb.long else None
            async with one_at_a_time:
                env = await anyio.to_thread.run_sync(call, tool, ws, params.arguments, on_line)
        return types.CallToolResult(content=[types.TextContent(text=dumps(env))], structured_content=env,
                                    is_error=not env["ok"])

    async def list_resources(_ctx, _params) -> types.ListResourcesResult:
        try:
            entries = resources.listing(ws)
        except Exception as exc:     # a broken spec: say so in the protocol's error, with the envelope's
            raise MCPError(types.INTERNAL_ERROR, str(exc), failure("resources", exc)["error"]) from None
        return types.ListResourcesResult(resources=[
            types.Resource(uri=e.uri, name=e.name, description=e.description, mime_type=e.mime_type)
            for e in entries])

    async def list_templates(_ctx, _params) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[
            types.ResourceTemplate(uri_template=e.uri, name=e.name, description=e.description, mime_type=e.mime_type)
            for e in resources.TEMPLATES])

    async def read_resource(_ctx, params) -> types.ReadResourceResult:
        uri = str(params.uri)
        found = resources.reader(uri)
        if found is None:
            raise MCPError(types.INVALID_PARAMS, f"no resource {uri}; resources/list names them")
        read, mime = found
        async with one_at_a_time:
            try:
                text = await anyio.to_thread.run_sync(read, ws)
            except Exception as exc:
                error = failure("resource", exc)["error"]
                raise MCPError(types.INVALID_PARAMS, error["message"], error) from None
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)])

    return Server("bib2graph", version=__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call_tool, on_list_resources=list_resources,
                  on_list_resource_templates=list_templates, on_read_resource=read_resource)


def _progress(ctx: Any, read_progress):
    """A sink for Snakemake's lines (called in the worker thread) that reports each change of progress."""
    import anyio.from_thread

    state = {"done": 0, "total": None}

    def on_line(line: str) -> None:
        nonlocal state
        new = read_progress(line, state)
        if new != state:
            state = new
            anyio.from_thread.run(ctx.session.report_progress, float(new["done"]),
                                  None if new["total"] is None else float(new["total"]),
                                  f"{new['done']} of {new['total'] or '?'} steps")
    return on_line


def serve_stdio(ws: Workspace) -> None:
    """Serve `ws` over stdin/stdout until the client closes stdin."""
    import anyio
    from mcp.server.stdio import stdio_server

    from .malformed import answer_malformed

    async def main() -> None:
        server = build(ws)
        async with stdio_server() as (read, write):
            forward, checked = anyio.create_memory_object_stream(0)
            async with anyio.create_task_group() as tasks:   # a line that is no message is answered
                tasks.start_soon(answer_malformed, read, write, forward)
                await server.run(checked, write, server.create_initialization_options())

    anyio.run(main)
