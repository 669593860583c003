"""Human-mode output: a short, readable rendering of an envelope, on stderr."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

_STYLE = {"complete": "green", "stale": "yellow", "missing": "red"}


def _status(console: Console, data: dict[str, Any]) -> None:
    table = Table(title=f"bib2graph workspace {data['workspace']['root']}")
    for column in ("job", "state", "why"):
        table.add_column(column)
    for job in data["jobs"]:
        table.add_row(job["job"], f"[{_STYLE[job['state']]}]{job['state']}[/]", "; ".join(job["reasons"]))
    console.print(table)
    counts = data["counts"]
    console.print(" · ".join(f"{k}: {'-' if v is None else v}" for k, v in counts.items() if k != "networks"))
    for kind, size in sorted(counts["networks"].items()):
        console.print(f"  {kind}: {size['nodes'] if size['nodes'] is not None else '-'} nodes, "
                      f"{size['edges'] if size['edges'] is not None else '-'} edges")


def show(env: dict[str, Any]) -> None:
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    for warning in env["warnings"]:
        console.print(f"[yellow]warning:[/] {warning}")
    if not env["ok"]:
        err = env["error"]
        console.print(f"[red]error[/] ({err['code']}, exit {env['exit_code']}): {err['message']}")
        return
    data = env["data"]
    if env["command"] == "status":
        _status(console, data)
    elif env["command"] in ("accept", "reject"):
        console.print(f"{env['command']}ed {len(data['ids'])} work(s), {len(data['changed'])} changed; "
                      f"run `{data['next']}` to rebuild what depends on them")
    elif env["command"] == "run":
        console.print(f"done: results in {data['results']}")
    elif env["command"] == "plan":
        console.print(f"requests: {data['requests'] or 'none'} · estimated cost ${data['cost_usd']:.4f}")
    elif env["command"] == "init":
        console.print(f"workspace ready at {data['workspace']['root']}; next: {data['next']}")
    else:
        _summary(console, data)


def _summary(console: Console, data: dict[str, Any]) -> None:
    """Any other verb: its top-level values, one a line (lists and maps by their size)."""
    for key, value in sorted(data.items()):
        if key == "workspace":
            continue
        if isinstance(value, (list, dict)):
            value = f"{len(value)} item(s)"
        console.print(f"{key}: {value}")
