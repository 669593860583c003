"""`create_app`: the FastAPI app of `b2g gui` over one workspace (docs/api.md).

Each route calls one service function and answers with its envelope (`respond`); the route's name
is the envelope's `command`. Errors FastAPI or Starlette raise themselves (a bad body, no such
route) become envelopes too, so every JSON body a client sees is the contract's.
"""

from __future__ import annotations

import threading
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Literal

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException
from starlette.responses import Response, StreamingResponse

from ..errors import UsageError
from ..service import audit
from ..service.envelope import dumps, failure
from ..service.jobs import TERMINAL, RunJobs
from ..service.perform import text_problem
from ..service.result import Result
from ..service.workspace import Workspace
from .guard import Guard, route_namer
from .respond import envelope_response, respond
from .static import STATIC, page
from .statuses import table

DECISION_WAIT = 10.0     # seconds a decision waits for another writer's lock (the CLI's --wait)
KEEPALIVE = 15.0         # seconds between keep-alive comments on an idle event stream


def _text(value: str) -> str:
    """A string of a body is text: JSON's "\\ud800" (a lone surrogate, no character) and NUL, which no
    file or command line holds, are a 400 as the CLI's and MCP's arguments are, not a 500 deeper down."""
    problem = text_problem(value)
    if problem:
        raise ValueError(problem)
    return value


Text = Annotated[str, AfterValidator(_text)]


class DecisionBody(BaseModel):
    """A misspelt field ("reasn") is a 400, as MCP refuses unknown arguments: never silently dropped."""
    model_config = ConfigDict(extra="forbid")

    decision: Literal["accept", "reject"]
    ids: list[Text] = Field(min_length=1)
    reason: Text = ""
    by: Text | None = None


class RunBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target: Text | None = None
    args: list[Text] = []


def create_app(workspace: Workspace, token: str, port: int | None = None, *, jobs: RunJobs | None = None,
               static_dir: Path = STATIC) -> FastAPI:
    """The app for `workspace`, answering requests that carry `token` and a Host of 127.0.0.1:`port`
    or localhost:`port` (any Host when `port` is None, for an app mounted elsewhere)."""
    jobs = jobs or RunJobs(workspace)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        yield
        await anyio.to_thread.run_sync(jobs.close)

    app = FastAPI(title="bib2graph local API", version="1", lifespan=lifespan, description=_description(),
                  openapi_url="/api/openapi.json", docs_url=None, redoc_url=None)
    app.state.jobs = jobs
    _errors(app)
    _reads(app, workspace)
    _writes(app, workspace, jobs)
    _runs(app, workspace, jobs)
    _spa(app, static_dir)
    hosts = None if port is None else {f"127.0.0.1:{port}", f"localhost:{port}"}
    app.add_middleware(Guard, token=token, hosts=hosts, command_of=route_namer(app.router.routes))
    return app


def _description() -> str:
    """The API's contract in words, with the status table, for the OpenAPI document."""
    rows = "\n".join(f"| {'exit ' + str(r['exit']) if 'exit' in r else r['code']} | {r['http']} |" for r in table())
    return ("Every JSON body is the b2g envelope, schema \"1\" (docs/contract.md); `data` validates against "
            "docs/contract/<command>.schema.json. Send the token as `Authorization: Bearer TOKEN`, `?token=` "
            "or the `b2g_token` cookie. HTTP status of an envelope (a code's own row first, else its exit "
            "code's; 202 for a run started):\n\n| exit or code | HTTP |\n| --- | --- |\n" + rows)


def _errors(app: FastAPI) -> None:
    """Starlette's own errors as envelopes."""
    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        problems = [{"where": ".".join(str(part) for part in e.get("loc", ())), "problem": str(e.get("msg", ""))}
                    for e in exc.errors()]
        text = "; ".join(f"{p['where']}: {p['problem']}" for p in problems)
        error = UsageError(f"bad request: {text}", details={"problems": problems})
        return envelope_response(failure(_command(request), error))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(exc.status_code, "USAGE_ERROR")
        error = UsageError(f"{request.method} {request.url.path}: {exc.detail}", code=code)
        response = envelope_response(failure(_command(request), error))
        response.status_code = exc.status_code
        return response


def _command(request: Request) -> str:
    route = request.scope.get("route")
    return getattr(route, "name", "") or ""


def _reads(app: FastAPI, ws: Workspace) -> None:
    dry_run = threading.Lock()   # status runs Snakemake's planner in-process: one at a time

    @app.get("/api/status", name="status")
    def status() -> Response:
        """The state of every phase and job, and the counts (as `b2g status`)."""
        from ..service.status import get_status

        with dry_run:
            return respond("status", lambda: get_status(ws))

    @app.get("/api/works/{work_id:path}", name="inspect")   # a DOI or URL holds slashes
    def work(work_id: Text) -> Response:
        """One work: record, provenance, screening, decision, place in each network (as `b2g inspect`)."""
        from ..service.inspect import inspect_work

        return respond("inspect", lambda: inspect_work(ws, work_id))

    @app.get("/api/prisma", name="prisma")
    def prisma() -> Response:
        """The PRISMA 2020 counts of the last corpus build (as `b2g prisma`)."""
        from ..service.prisma import read_prisma

        return respond("prisma", lambda: read_prisma(ws))

    @app.get("/api/networks", name="networks")
    def networks() -> Response:
        """Every network of the spec: built or not, sizes, clusters, layout (as `b2g networks`)."""
        from ..service.network_view import list_networks

        return respond("networks", lambda: list_networks(ws))

    @app.get("/api/networks/{kind}", name="network")
    def network(kind: Text, edges: int = 20000, offset: int = 0) -> Response:
        """One network: nodes with layout, clusters, metrics, a page of edges strongest first (as `b2g network`)."""
        from ..service.network_view import network as read_network

        return respond("network", lambda: read_network(ws, kind, edges, offset))

    @app.get("/api/networks/{kind}/slices", name="slices")
    def sliced(kind: Text) -> Response:
        """One network in each time slice: members, clusters, cluster events (as `b2g slices`)."""
        from ..service.slices_view import slices

        return respond("slices", lambda: slices(ws, kind))

    @app.get("/api/networks/{kind}/density", name="density")
    def density(kind: Text, metric: Text = "strength") -> Response:
        """The map's density view: VOSviewer's item density of the layout, each node weighted by a size
        metric (API only: no CLI verb draws it)."""
        from ..service.density_view import density as item_density

        return respond("density", lambda: item_density(ws, kind, metric))

    @app.get("/api/networks/{kind}/evidence", name="evidence")
    def evidence(kind: Text, source: Text, target: Text) -> Response:
        """The documents behind one edge: why two nodes are linked (as `b2g evidence`)."""
        from ..service.evidence import edge_evidence

        return respond("evidence", lambda: edge_evidence(ws, kind, source, target))

    @app.get("/api/search", name="search")
    def search(q: Text, limit: int = 20) -> Response:
        """Pooled works by title words, authors, DOI or OpenAlex ID (as `b2g search`)."""
        from ..service.search import search_works

        return respond("search", lambda: search_works(ws, q, limit))

    @app.get("/api/queue", name="queue")
    def queue(limit: int = 50, before: Text | None = None) -> Response:
        """The works awaiting a decision, ranked by the screening model once it can be fitted, with the
        stopping rule's verdict (as `b2g queue`)."""
        from ..service.queue import screening_queue

        return respond("queue", lambda: screening_queue(ws, limit, before))


def _writes(app: FastAPI, ws: Workspace, jobs: RunJobs) -> None:
    @app.post("/api/decisions", name="decide")
    def decide(body: DecisionBody) -> Response:
        """Accept or reject works, as `b2g accept` / `b2g reject` (same lock, audit fields, validation)."""
        from ..service.curate import decide as record

        return respond(body.decision, lambda: record(ws, body.decision, body.ids, body.reason,
                                                     audit.who(body.by), audit.now(), wait=DECISION_WAIT))

    @app.delete("/api/decisions/{work_id:path}", name="withdraw")   # a DOI or URL holds slashes
    def withdraw(work_id: Text) -> Response:
        """Remove a work's recorded decision: it is pending again (screening's undo), as `b2g withdraw`."""
        from ..service.curate import withdraw as withdraw_decisions

        return respond("withdraw", lambda: withdraw_decisions(ws, [work_id], wait=DECISION_WAIT))


def _job_result(ws: Workspace, job: dict) -> Result:
    return Result(data={"workspace": ws.describe(), "job": job})


def _runs(app: FastAPI, ws: Workspace, jobs: RunJobs) -> None:
    streams = anyio.CapacityLimiter(STREAM_THREADS)

    @app.post("/api/run", name="job", status_code=202)
    def start(body: RunBody | None = None) -> Response:
        """Start `b2g run [target]` in the background (202); 409 RUN_IN_PROGRESS while one runs."""
        body = body or RunBody()
        return respond("job", lambda: _job_result(ws, jobs.start(body.target, body.args)), ok_status=202)

    @app.get("/api/run", name="job")
    def current() -> Response:
        """The current (or last) run: state, progress, last log lines, its envelope when finished."""
        return respond("job", lambda: _job_result(ws, jobs.snapshot()))

    @app.delete("/api/run", name="job")
    def cancel() -> Response:
        """Cancel the running job (SIGTERM: Snakemake stops gracefully and the outputs are put back)."""
        return respond("job", lambda: _job_result(ws, jobs.cancel()))

    @app.get("/api/run/events", name="job events")
    async def events() -> StreamingResponse:
        """Server-sent events: `progress` (the job) on every change, `done` (the job) once it ends."""
        return StreamingResponse(_stream(jobs, streams), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


#: worker threads the event streams may hold at once, apart from the pool the routes run in: each stream
#: waits for the job in a thread, and 40 open streams took every thread the routes had (a GET then hung)
STREAM_THREADS = 8


async def _stream(jobs: RunJobs, limiter: anyio.CapacityLimiter):
    seen = -1
    while True:     # beyond STREAM_THREADS streams, each waits its turn (a wait ends within KEEPALIVE)
        job, version, closed = await anyio.to_thread.run_sync(jobs.wait_change, seen, KEEPALIVE,
                                                              abandon_on_cancel=True, limiter=limiter)
        if version == seen and not closed:
            yield ": keep-alive\n\n"
            continue
        seen = version
        finished = job["state"] in TERMINAL
        yield _event("done" if finished else "closed" if closed else "progress", version, job)
        if finished or closed:     # `closed`: the server shuts down before the job ended (it is cancelled)
            return


def _event(name: str, version: int, job: dict) -> str:
    return f"event: {name}\nid: {version}\ndata: {dumps(job)}\n\n"


def _endpoint_of(app: FastAPI, request: Request):
    """(the first API route whose path is the request's, the methods the routes of that path take), or
    (None, []) when no route but the catch-alls has the path."""
    from starlette.routing import Match

    found = [r for r in app.router.routes if getattr(r, "path", "") not in ("/api", "/api/{rest:path}", "/{path:path}")
             and getattr(r, "methods", None) and r.matches(request.scope)[0] == Match.PARTIAL]
    return (found[0] if found else None), sorted({m for r in found for m in r.methods})


#: the methods the API's catch-all answers (HTTP's, but CONNECT and TRACE, which no server route takes)
EVERY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def _spa(app: FastAPI, static_dir: Path) -> None:
    @app.get("/", name="gui", include_in_schema=False)
    def index() -> Response:
        return page(static_dir, "")

    @app.api_route("/api", methods=EVERY_METHOD, name="", include_in_schema=False)
    @app.api_route("/api/{rest:path}", methods=EVERY_METHOD, name="", include_in_schema=False)
    def unknown_api(request: Request, rest: str = "") -> Response:
        """404, or 405 with `Allow` where an endpoint has the path but not the method: this catch-all
        answers before Starlette could say so (HEAD and OPTIONS included: Starlette's 405 had no envelope
        and no `Allow`); `/api` itself is no page of the GUI."""
        route, allowed = _endpoint_of(app, request)
        if route is None:
            error = UsageError(f"{request.method} {request.url.path}: no such endpoint (see /api/openapi.json)",
                               code="NOT_FOUND")
            return envelope_response(failure("", error))
        error = UsageError(f"{request.method} {request.url.path}: this endpoint takes {', '.join(allowed)}",
                           code="METHOD_NOT_ALLOWED", details={"allowed": allowed})
        response = envelope_response(failure(getattr(route, "name", "") or "", error))
        response.headers["Allow"] = ", ".join(allowed)
        return response

    @app.get("/{path:path}", name="gui", include_in_schema=False)
    def files(path: str) -> Response:
        return page(static_dir, path)

