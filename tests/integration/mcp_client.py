"""A real `b2g mcp` process driven by the MCP SDK's own client, from synchronous tests.

The client lives in a thread with its own event loop (anyio's blocking portal), so one server process
can serve every test of a module.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from anyio.from_thread import BlockingPortal, start_blocking_portal

from .helpers import check_envelope

USER = "agent"      # B2G_USER of the server and of the CLI calls it is compared with


@dataclass
class McpSession:
    portal: BlockingPortal
    client: Any
    progress: list[tuple[float, float | None, str | None]] = field(default_factory=list)

    def tools(self) -> list[Any]:
        return self.portal.call(self.client.list_tools).tools

    def call(self, name: str, arguments: dict[str, Any] | None = None, *, progress: bool = False) -> dict:
        """The envelope a tool answers with (checked against the contract), its error flag matching it."""
        async def record(done: float, total: float | None, message: str | None) -> None:
            self.progress.append((done, total, message))

        result = self.portal.call(lambda: self.client.call_tool(name, arguments or {},
                                                                progress_callback=record if progress else None))
        env = result.structured_content
        check_envelope(env)
        assert result.is_error is (not env["ok"])
        return env

    def resources(self) -> list[Any]:
        return self.portal.call(self.client.list_resources).resources

    def read(self, uri: str) -> Any:
        return self.portal.call(self.client.read_resource, uri).contents[0]


@contextmanager
def mcp_server(workspace: Path) -> Iterator[McpSession]:
    from mcp import Client, StdioServerParameters

    env = {k: v for k, v in os.environ.items() if not k.startswith("B2G_")} | {"B2G_USER": USER}
    params = StdioServerParameters(command=sys.executable, args=["-m", "bib2graph", "mcp", "--workspace", str(workspace)],
                                   env=env)
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(Client(params, read_timeout_seconds=300)) as client:
            yield McpSession(portal, client)
