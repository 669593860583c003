"""The verbs of `b2g` as plain data: the one table both adapters build from, below both.

    Verb(name, help, own params, call, reads, keyed, long, workspace, tool, serves, passthrough)
    Param(name, kind, type, flags, default, help, required, multiple, min, max, choices, metavar, …)

cli/commands.py makes a Click command of each verb, mcp_server/tools.py an MCP tool of each verb that is
one, and `b2g schema` describes them (`described`); service/perform.py runs a verb's call for either
adapter. So there is no second list of verbs or parameters, and the adapters need not import each other.
The table imports neither Click nor MCP: a parameter's type is a plain name, mapped by each adapter.

Types: "text"; "int" and "float" (bounded by `min` and `max` when given); "flag" (an option without a
value); "dir" and "file" (a path to a folder or to a file); "raw" (text passed on unparsed: Snakemake's
arguments); a parameter with `choices` takes one of them.

A verb's `call(ws, params, on_line)` gets the workspace (None for verbs without one), the parameters by
name and a sink for Snakemake's output lines. Service modules are imported when a verb runs, by name
(`service`), so `b2g --help` stays fast. The serving verbs (`gui`, `mcp`) have no call: they serve until
stopped, and `serves` names the module that does (imported by name when the verb runs: the CLI knows no
other adapter, and their extras load only then).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from .audit import now, who
from .result import Result

Call = Callable[[Any, dict[str, Any], Callable[[str], None] | None], Result]


@dataclass(frozen=True)
class Param:
    """One parameter of a verb: an option (by its flags) or a positional argument."""
    name: str                         # the key of the call's params
    kind: str = "option"              # "option" or "argument"
    type: str = "text"                # see the module docstring
    flags: tuple[str, ...] = ()       # an option's spellings, the long one first: ("--limit", "-n")
    default: Any = None               # None: absent (a flag is then false, a multiple empty)
    help: str = ""
    required: bool = False
    multiple: bool = False            # an option given repeatedly, or an argument taking any number
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] | None = None
    metavar: str | None = None
    show_default: bool = False
    eager: bool = False               # acts as soon as it is parsed and takes no value (--schema)


@dataclass(frozen=True)
class Verb:
    """One verb: what the CLI parses and shows, what an MCP tool takes, and what runs."""
    name: str                         # "snapshot list" for a subverb
    help: str                         # first line: the summary
    own: tuple[Param, ...] = ()       # the verb's parameters, before the shared ones
    call: Call | None = None          # None: a serving verb, run by its adapter
    reads: bool = False               # never writes under the workspace (MCP: readOnlyHint)
    keyed: bool = False               # takes --idempotency-key (seed 003)
    long: bool = False                # runs the workflow: reports progress
    workspace: bool = True            # resolves --workspace first
    tool: bool = True                 # an MCP tool (init is not: the server serves one existing workspace)
    serves: str | None = None         # a serving verb: the module that serves it
    passthrough: bool = False         # options it does not know go on to Snakemake (`b2g run --executor …`)

    @property
    def params(self) -> tuple[Param, ...]:
        """Every parameter in the order `--help` lists them: its own, then the shared ones."""
        shared = (SCHEMA, JSON, WORKSPACE) if self.workspace else (JSON, SCHEMA)
        return self.own + shared + ((KEY,) if self.keyed else ())


def arg(name: str, *, multiple: bool = False, required: bool = True, type: str = "text",
        metavar: str | None = None) -> Param:
    """A positional argument (required unless said otherwise)."""
    return Param(name, "argument", type, required=required, multiple=multiple, metavar=metavar)


def opt(*flags: str, name: str | None = None, **fields: Any) -> Param:
    """An option, named after its long flag unless `name` says otherwise."""
    return Param(name or flags[0].lstrip("-").replace("-", "_"), "option", flags=flags, **fields)


def service(module: str, name: str) -> Callable[..., Result]:
    """A service function, imported when called (so `b2g --help` stays fast)."""
    return getattr(importlib.import_module(f"bib2graph.service.{module}"), name)


JSON = opt("--json", name="json_flag", type="flag", help="Print one JSON envelope on stdout (also: B2G_JSON=1).")
WORKSPACE = opt("--workspace", "-w", metavar="DIR",
                help="The workspace folder (default: B2G_WORKSPACE, else the nearest folder above with "
                     "config/research.yaml).")
SCHEMA = opt("--schema", type="flag", eager=True,
             help="Print this verb's parameters and data schema as JSON, then exit.")
KEY = opt("--idempotency-key", metavar="KEY",
          help="Act at most once for this key: a repeat with the same arguments returns the recorded result, "
               "other arguments are IDEMPOTENCY_CONFLICT.")
BY = opt("--by", help="Who decides (default: B2G_USER, else the login name).")
WAIT = opt("--wait", type="float", min=0, default=0.0, show_default=True,
           help="Seconds to wait for another writer's lock before giving up (exit 5).")
KIND = arg("kind")

# Parameters that choose where or how a call prints, not what it asks: left out of the request an
# idempotency key stands for, and of the MCP tools (the server has one workspace and speaks JSON).
PLUMBING = ("json_flag", "workspace", "idempotency_key", "wait")
#: bytes one call may send (the MCP tool's arguments as JSON, the local API's request body): no verb needs
#: more (decisions are capped at `curation.MAX_IDS_PER_CALL` IDs), and a bigger one only costs memory
MAX_REQUEST = 1 << 20

# Groups of subverbs that are no verb themselves: their help.
GROUPS = {"curate": "Curation at scale: dump the works awaiting a decision to CSV, apply a reviewed copy."}


def _phase(verb: str, target: str) -> Verb:
    """`b2g seed|chain|filter|build|export`: the workflow up to one phase."""
    def call(ws, p, on_line):
        extra = (["--cores", p["cores"]] if p["cores"] else []) + list(p["snakemake_args"])
        return service("run", "run_verb")(ws, verb, extra, on_line=on_line)
    return Verb(verb, f"Run the workflow up to `{target}`; what is up to date is not redone. "
                      "Arguments after `--` go to Snakemake.",
                (arg("snakemake_args", multiple=True, required=False, type="raw", metavar="[-- SNAKEMAKE ARGS]"),
                 opt("--cores", "-c", metavar="N", help="Cores for Snakemake (default: all, or the profile's).")),
                call, keyed=True, long=True)


def _decision(decision: str, help: str) -> Verb:
    """`b2g accept|reject`: record one decision on works."""
    return Verb(decision, help,
                (arg("ids", multiple=True), opt("--reason", "-r", default="",
                                                help="Why (kept in curation.tsv; required by reject)."), BY, WAIT),
                lambda ws, p, on_line: service("curate", "decide")(ws, decision, list(p["ids"]), p["reason"],
                                                                   who(p["by"]), now(), wait=p["wait"]),
                keyed=True)


VERBS: dict[str, Verb] = {verb.name: verb for verb in (
    Verb("init", "Create a workspace in FOLDER: config/research.yaml (the demo spec), config/curation.tsv and "
                 "profiles/.",
         (arg("folder", type="dir"), opt("--force", type="flag",
                                         help="Overwrite an existing spec and profiles (an existing curation file is kept).")),
         lambda ws, p, on_line: service("init", "init_workspace")(p["folder"], force=p["force"]),
         workspace=False, tool=False),
    Verb("run", "Run the workflow, or up to one phase (seed, chain, corpus, networks, exports, report).\n\n"
                "Other arguments go to Snakemake, e.g. `b2g run corpus --cores 2` or `b2g run --executor slurm`.",
         (arg("args", multiple=True, required=False, type="raw"),
          opt("--refresh", type="flag", help="Fetch from OpenAlex again instead of reusing the raw store.")),
         lambda ws, p, on_line: service("run", "run_workflow")(ws, list(p["args"]), refresh=p["refresh"],
                                                               on_line=on_line),
         keyed=True, long=True, passthrough=True),
    *(_phase(verb, target) for verb, target in (("seed", "seed"), ("chain", "chain"), ("filter", "corpus"),
                                                 ("build", "networks"), ("export", "exports"))),
    Verb("status", "Which jobs are complete, stale (and why) or missing, and the counts of every artifact.",
         call=lambda ws, p, on_line: service("status", "get_status")(ws), reads=True),
    Verb("curate dump", "Write a CSV of the works awaiting a decision, with empty decision and reason columns "
                        "to fill.",
         (opt("--out", "-o", metavar="FILE", help="Where to write (default: results/curation/to-screen.csv)."),
          opt("--all", name="everything", type="flag", help="Every pooled work, decided or not, seeds included.")),
         lambda ws, p, on_line: service("curate_file", "dump")(ws, p["out"], p["everything"])),
    Verb("curate apply", "Record the decisions of a reviewed CSV (accept, reject or empty per row); a bad one "
                         "changes nothing.",
         (arg("file", type="file"), BY),
         lambda ws, p, on_line: service("curate_file", "apply")(ws, p["file"], who(p["by"]), now()), keyed=True),
    Verb("snapshot", "Seal the corpus, curation, networks and report into results/snapshots/<id>/ (never "
                     "overwritten).",
         (opt("--name", default="snapshot", show_default=True, help="A short name, part of the snapshot's ID."),),
         lambda ws, p, on_line: service("snapshots", "create")(ws, p["name"], now()), keyed=True),
    Verb("snapshot list", "The sealed snapshots, oldest first.",
         call=lambda ws, p, on_line: service("snapshots", "listing")(ws), reads=True),
    Verb("snapshot diff", "Works added and removed, decisions changed, network sizes and clusters from snapshot A "
                          "to B.",
         (arg("a"), arg("b")),
         lambda ws, p, on_line: service("snapshots", "compare")(ws, p["a"], p["b"]), reads=True),
    Verb("snapshot restore", "Rebuild a snapshot's networks offline from its sealed data and check them byte for "
                             "byte.",
         (arg("snapshot_id"), opt("--into", metavar="DIR", help="A new folder (default: results/restored/<id>).")),
         lambda ws, p, on_line: service("snapshots", "restore")(ws, p["snapshot_id"], p["into"], on_line=on_line),
         keyed=True, long=True),
    Verb("monitor", "Ask OpenAlex for new works citing the included corpus; they join the pool as pending "
                    "candidates.\n\n"
                    "Safe for cron: a lock, a timeout, no prompt, a log file (results/logs/monitor.log); nothing new "
                    "is exit 0.",
         (opt("--timeout", type="float", min=1, max=86_400, default=600, show_default=True,
              help="Give up (exit 4) after this many seconds."),),
         lambda ws, p, on_line: service("monitor", "run_monitor")(ws, now(), p["timeout"]), long=True),
    Verb("inspect", "One work: its record, where it came from, what screening and curation said, its place in "
                    "each network.",
         (arg("work_id"),), lambda ws, p, on_line: service("inspect", "inspect_work")(ws, p["work_id"]), reads=True),
    Verb("search", "Find pooled works by title words, author names, DOI (any form) or OpenAlex ID; best matches "
                   "first.",
         (arg("text", multiple=True), opt("--limit", "-n", type="int", default=20, show_default=True,
                                          help="At most this many works (1-1000).")),
         lambda ws, p, on_line: service("search", "search_works")(ws, " ".join(p["text"]), p["limit"]), reads=True),
    Verb("evidence", "The documents behind one edge of network KIND: why SOURCE and TARGET are linked.",
         (KIND, arg("source"), arg("target")),
         lambda ws, p, on_line: service("evidence", "edge_evidence")(ws, p["kind"], p["source"], p["target"]),
         reads=True),
    Verb("queue", "The works awaiting a decision, likely includes first once the model can rank, and whether to "
                  "stop.\n\n"
                  "Ranked by the screening model (spec screening.model) once there is an include and an exclude; "
                  "each\nwork says why it is here and why it ranks there. The stopping rule's verdict comes with it.",
         (opt("--limit", "-n", type="int", default=50, show_default=True, help="At most this many works (1-10000)."),
          opt("--before", metavar="WORK_ID",
              help="The queue as it stood just before the decision on this work was recorded (an audit).")),
         lambda ws, p, on_line: service("queue", "screening_queue")(ws, p["limit"], p["before"]), reads=True),
    Verb("simulate", "Replay screening on a labelled review: WSS@95, recall after 10%, time to discovery, the "
                     "stopping rule.\n\n"
                     "The labelled works the pool holds are screened as the queue would order them, from prior "
                     "decisions\ndrawn with each seed; the model and the stopping rule are the spec's "
                     "(screening.model, .stopping).",
         (opt("--labels", metavar="FILE", help="A labels file (openalex_id or doi, label_included), relative to "
                                                "the current directory; default: screening.simulation.labels."),
          opt("--priors", type="int", min=1, max=100,
              help="Prior includes and excludes drawn, each (default: screening.simulation.priors)."),
          opt("--seed", name="seeds", type="int", min=0, max=2**32 - 1, multiple=True,
              help="One replay per seed, repeatable (default: screening.simulation.seeds)."),
          opt("--out", metavar="FILE",
              help="The curves' Parquet table, relative to the current directory (default: "
                   "results/simulations/<labels stem>.parquet in the workspace).")),
         lambda ws, p, on_line: service("simulate", "run_simulation")(ws, p["labels"], p["priors"], p["seeds"],
                                                                      p["out"], on_line),
         keyed=True, long=True),
    Verb("networks", "Every network of the spec: built or not, nodes, edges, clusters, and whether a layout is "
                     "drawn.",
         call=lambda ws, p, on_line: service("network_view", "list_networks")(ws), reads=True),
    Verb("network", "One network: its nodes (with layout positions), clusters, metrics and a page of its "
                    "strongest edges.",
         (KIND, opt("--edges", type="int", default=20000, show_default=True,
                    help="Edges per page, strongest first (0-200000)."),
          opt("--offset", type="int", default=0, show_default=True,
              help="Skip this many edges (the previous page's edges_next).")),
         lambda ws, p, on_line: service("network_view", "network")(ws, p["kind"], p["edges"], p["offset"]),
         reads=True),
    Verb("slices", "One network in each time slice (`time:` in the spec): members and clusters per slice, "
                   "cluster events.",
         (KIND,), lambda ws, p, on_line: service("slices_view", "slices")(ws, p["kind"]), reads=True),
    Verb("prisma", "The PRISMA 2020 counts of the last corpus build: identified, duplicates, screened, excluded, "
                   "included.",
         call=lambda ws, p, on_line: service("prisma", "read_prisma")(ws), reads=True),
    Verb("validate", "Check the spec, the curation file and every artifact against its schema.",
         call=lambda ws, p, on_line: service("validate", "validate_workspace")(ws), reads=True),
    Verb("plan", "How many OpenAlex requests of each kind the spec will make, and their cost; sends none.",
         call=lambda ws, p, on_line: service("plan", "make_plan")(ws), reads=True),
    Verb("gui", "Serve the review in the browser: the GUI and its local API, on 127.0.0.1 with a one-time "
                "token.\n\n"
                "Prints the URL (with the token) once listening, then serves until Ctrl-C or SIGTERM (exit 0).\n"
                "With --json: one envelope {workspace, url, port, pid}, then it serves; stop it with SIGTERM to pid.",
         (opt("--port", type="int", min=0, max=65535, default=0, show_default=True,
              help="Port on 127.0.0.1 (0: a free one)."),
          opt("--no-browser", type="flag", help="Print the URL but do not open a browser.")),
         tool=False, serves="bib2graph.api.launch"),
    Verb("mcp", "Serve the verbs to an AI agent as MCP tools over stdio (needs the `mcp` extra).\n\n"
                "One tool per verb on this workspace, the same service calls, envelopes and errors as the CLI;\n"
                "stdout carries only the protocol. It serves until the client closes stdin. See docs/contract.md.",
         tool=False, serves="bib2graph.mcp_server.server"),
    _decision("accept", "Include works (IDs or DOIs) in the corpus, whatever the filters say."),
    _decision("reject", "Exclude works (IDs or DOIs) from the corpus, saying why with --reason."),
    Verb("withdraw", "Remove the recorded decisions of works (IDs or DOIs): they are pending again, as if never "
                     "decided.",
         (arg("ids", multiple=True), WAIT),
         lambda ws, p, on_line: service("curate", "withdraw")(ws, list(p["ids"]), wait=p["wait"]), keyed=True),
    Verb("schema", "The contract: version, exit codes, every verb with its parameters and the JSON Schema of its "
                   "data.",
         call=lambda ws, p, on_line: service("contract", "describe")(described()), reads=True, workspace=False),
)}


def subverbs(name: str) -> list[Verb]:
    """The verbs under `name` (`snapshot` -> `snapshot list`, …)."""
    return [verb for key, verb in VERBS.items() if key.startswith(name + " ")]


# ---------------------------------------------------------------------------------- the contract's view

_CONTRACT_TYPES = {"text": "text", "raw": "text", "int": "integer", "float": "float", "dir": "directory",
                   "file": "file"}


def contract_type(param: Param) -> str:
    """The type's name as `b2g schema` gives it (Click's names, which contract 1 published)."""
    if param.type == "flag":
        return "flag"
    if param.choices is not None:
        return "choice"
    name = _CONTRACT_TYPES[param.type]
    return f"{name} range" if param.min is not None or param.max is not None else name


def _described_param(param: Param) -> dict[str, Any]:
    out: dict[str, Any] = {"name": param.name, "kind": param.kind, "type": contract_type(param),
                           "required": param.required, "multiple": param.multiple}
    if param.kind == "option":
        out["flags"] = sorted(param.flags)
        out["help"] = param.help
        if not param.required and isinstance(param.default, (str, int, float, bool)):
            out["default"] = param.default
    if param.choices is not None:
        out["choices"] = list(param.choices)
    return out


def described(names: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Every verb (or those named) with its summary and parameters, as `b2g schema` lists them.

    `passes_extra_args_to_snakemake` is what contract 1 published: true of a verb with subverbs (Click
    passes their arguments on), false of `run`, whose extra arguments are its `args`."""
    return {name: {"help": VERBS[name].help.splitlines()[0],
                   "params": [_described_param(p) for p in VERBS[name].params],
                   "passes_extra_args_to_snakemake": bool(subverbs(name))}
            for name in (names or sorted(VERBS))}
