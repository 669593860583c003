"""Human-mode output: each verb's envelope rendered for a person, on stderr.

Every verb has its own renderer in RENDERERS (a test holds the table complete), so a reader sees the
content (IDs, counts, titles, paths), not only its shape. Values are escaped because titles and
messages may hold [brackets] rich would take for markup; rich drops colour when stderr is no terminal.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Iterable

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

_STYLE = {"complete": "green", "stale": "yellow", "missing": "red"}
_SHOWN_IDS = 10
# Where each phase verb leaves its files, under results/.
PHASE_FOLDERS = {"seed": "seed", "chain": "chain", "filter": "corpus", "build": "networks", "export": "export"}


def _text(value: Any) -> str:
    """A value as escaped markup; a missing one as '-'."""
    return "-" if value is None else escape(str(value))


def _first(ids: list[str], limit: int = _SHOWN_IDS) -> str:
    """The first IDs of a list, saying how many more there are (plain text, not yet escaped)."""
    return ", ".join(ids[:limit]) + (f" … and {len(ids) - limit} more" if len(ids) > limit else "")


def _table(columns: Iterable[str], rows: Iterable[Iterable[Any]], title: str | None = None,
           whole: int = 1) -> Table:
    """A table whose first `whole` columns (keys: IDs, paths, names) are not wrapped, and whose
    cells fold rather than end in an ellipsis, so no ID is cut on a narrow terminal."""
    table = Table(title=title, title_justify="left")
    for number, column in enumerate(columns):
        table.add_column(column, no_wrap=number < whole, overflow="fold")
    for row in rows:
        table.add_row(*(_text(cell) for cell in row))
    return table


def _pairs(rows: Iterable[tuple[str, Any]]) -> Table:
    """Label-value lines, the labels bold and aligned."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    for label, value in rows:
        grid.add_row(label, _text(value))
    return grid


def _networks(sizes: dict[str, dict[str, Any]], fields: tuple[str, ...] = ("nodes", "edges"),
              title: str = "networks") -> Table:
    return _table(("network", *fields), ([kind, *(size.get(f) for f in fields)]
                                         for kind, size in sorted(sizes.items())), title)


def _status(console: Console, data: dict[str, Any]) -> None:
    table = Table(title=f"bib2graph workspace {_text(data['workspace']['root'])}")
    for column in ("job", "state", "why"):
        table.add_column(column)
    for job in data["jobs"]:
        table.add_row(_text(job["job"]), f"[{_STYLE[job['state']]}]{job['state']}[/]", _text("; ".join(job["reasons"])))
    console.print(table)
    counts = data["counts"]
    console.print(" · ".join(f"{k}: {_text(v)}" for k, v in counts.items() if k != "networks"))
    console.print(_networks(counts["networks"]))
    _stopping(console, data.get("screening"))


def _decision(console: Console, data: dict[str, Any]) -> None:
    console.print(f"{data['decision']}ed {len(data['ids'])} work(s), {len(data['changed'])} changed; "
                  f"run `{_text(data['next'])}` to rebuild what depends on them")
    if data["changed"]:
        console.print(f"changed: {_text(_first(data['changed']))}")
    totals = data["decisions"]
    console.print(f"curation file: {totals['accept']} accepted, {totals['reject']} rejected")


def _run(console: Console, data: dict[str, Any]) -> None:
    console.print(f"done ({_text(', '.join(data['targets']))}): results in {_text(data['results'])}")


def _phase(verb: str, console: Console, data: dict[str, Any]) -> None:
    """seed/chain/filter/build/export: the counts of each phase it ran up to, and where its files are."""
    counts = data["counts"]
    networks = {key.split("/", 1)[1]: size for key, size in counts.items() if key.startswith("networks/")}
    for phase, phase_counts in sorted(counts.items()):
        if not phase.startswith("networks/"):
            _phase_counts(console, phase, phase_counts)
    if networks:
        console.print(_networks(networks))
    console.print(f"done ({_text(', '.join(data['targets']))}): files in "
                  f"{_text(data['results'])}/{PHASE_FOLDERS[verb]}/")


def _phase_counts(console: Console, phase: str, counts: dict[str, Any]) -> None:
    """One manifest's counts: numbers as lines, maps as `key value` lines, lists of records as tables."""
    rows: list[tuple[str, Any]] = []
    records: list[tuple[str, list[dict[str, Any]]]] = []
    for key, value in counts.items():
        if isinstance(value, dict):
            rows += [(f"{key} {sub}", n) for sub, n in sorted(value.items())] or [(key, 0)]
        elif isinstance(value, list):
            records.append((key, value))
        else:
            rows.append((key, value))
    console.print(Panel(_pairs(rows), title=phase, title_align="left", expand=False))
    for key, items in records:
        if items:
            console.print(_table(list(items[0]), ([item.get(c) for c in items[0]] for item in items),
                                 f"{phase} {key}"))


def _init(console: Console, data: dict[str, Any]) -> None:
    console.print(f"workspace ready at {_text(data['workspace']['root'])}; next: {_text(data['next'])}")
    for path in data["created"]:
        console.print(f"  created {_text(path)}")


def _mcp(console: Console, data: dict[str, Any]) -> None:
    """Never called with data: `b2g mcp` prints no envelope while it serves (stdout is the protocol)."""
    console.print("the MCP server has stopped")


def _gui(console: Console, data: dict[str, Any]) -> None:
    console.print(f"serving {_text(data['workspace']['root'])} at {_text(data['url'])}")
    console.print("open that URL in a browser (it carries this session's token); Ctrl-C stops the server")


def _plan(console: Console, data: dict[str, Any]) -> None:
    if data["source"] != "openalex":
        console.print(f"source: {data['source']}; {_text(data.get('note', 'no requests'))}")
        return
    kinds = sorted(data["requests"])
    seeding, round1 = data["seeding"]["requests"], data["chain_round_1"]["requests"]
    prices = data["prices_usd_per_request"]
    console.print(_table(("requests", "seeding", "chain round 1", "total", "USD each"),
                         ([k, seeding[k], round1[k], data["requests"][k], prices.get(k)] for k in kinds),
                         "OpenAlex requests by kind"))
    basis = data["basis"]
    console.print(_pairs([("estimated cost", f"${data['cost_usd']:.4f}"), ("per page", data["per_page"]),
                          ("seed IDs / DOIs", f"{basis['seed_ids']} / {basis['seed_dois']}"),
                          ("seeds in store", basis["seeds_in_store"]),
                          ("references of seeds", basis["references_of_seeds"]),
                          ("citing works (at most)", basis["citing_works_upper_bound"]),
                          ("stored responses", basis["stored_responses"])]))


def _inspect(console: Console, data: dict[str, Any]) -> None:
    work = data["work"]
    authors = [a for a in work["authors"] if a]
    record = _pairs([("ID", work["work_id"]), ("year", work.get("year")), ("venue", work.get("venue")),
                     ("DOI", work.get("doi")), ("type", work.get("type")), ("cited by", work.get("cited_by_count")),
                     ("authors", _first(authors) if authors else None)])
    title = Text(work.get("title") or "(no title)", style="bold", no_wrap=False, overflow="fold")
    console.print(Panel(Group(title, record), title=f"work {_text(work['work_id'])}", title_align="left"))
    console.print(_pairs([("came from", _provenance(data["provenance"])),
                          ("screening", _screening(data["screening"])),
                          ("decision", _decided(data["decision"]))]))
    nodes = data["networks"]
    if nodes:
        fields = ("cluster", "degree", "strength", "pagerank", "betweenness")
        console.print(_table(("network", *fields), ([kind, *(_number(node.get(f)) for f in fields)]
                                                    for kind, node in sorted(nodes.items())), "place in each network"))
    else:
        console.print("in no network")
    for kind, linked in sorted(data.get("neighbours", {}).items()):
        if linked:
            console.print(_table(("neighbour", "label", "weight", "count"),
                                 ([n["id"] + ({"out": " (cited)", "in": " (citing)"}.get(n.get("direction"), "")),
                                   n["label"], _number(n["weight"]), _number(n["count"])] for n in linked[:5]),
                                 f"strongest neighbours in {kind}"))


def _number(value: Any) -> Any:
    return f"{value:.4g}" if isinstance(value, float) else value


def _provenance(origin: dict[str, Any]) -> str:
    if origin.get("origin") == "seed":
        return f"seed, by {origin['seeded_by']}"
    if origin.get("origin") == "chain":
        return (f"chaining round {origin['round']}, {origin['direction']} from {origin['via']} "
                f"({origin['links']} link(s), score {_number(origin['score'])})")
    return "not recorded"


def _screening(row: dict[str, Any] | None) -> str:
    if row is None:
        return "not screened yet"
    if row.get("included"):
        verdict = "included"
    elif row.get("duplicate_of"):
        verdict = f"excluded: duplicate of {row['duplicate_of']}"
    else:
        verdict = f"excluded by {row.get('excluded_by') or 'a filter'}"
    return verdict + (f" (filter verdict: {row['filter_verdict']})" if row.get("filter_verdict") else "")


def _decided(decision: dict[str, Any] | None) -> str:
    if decision is None:
        return "none recorded"
    reason = f": {decision['reason']}" if decision.get("reason") else ""
    return f"{decision['decision']} by {decision.get('decided_by')} at {decision.get('decided_at')}{reason}"


def _schema(console: Console, data: dict[str, Any]) -> None:
    console.print(f"bib2graph {_text(data['version'])}, contract {_text(data['contract'])}")
    verbs = sorted(data["verbs"].items())
    console.print(_table(("verb", "what it does"), ((name, verb["help"]) for name, verb in verbs), "verbs"))
    console.print(_table(("exit", "meaning"), ((row["exit"], row["meaning"]) for row in data["exit_codes"]),
                         "exit codes"))
    console.print("parameters and data schemas: `b2g schema --json`, or `b2g VERB --schema`")


def _snapshot(console: Console, data: dict[str, Any]) -> None:
    what = "sealed" if data["created"] else "kept (nothing changed since)"
    console.print(f"snapshot {_text(data['id'])} {what}: {_text(data['path'])}")
    counts = data["counts"]
    console.print(f"corpus: {_text(counts.get('corpus'))} works")
    console.print(_networks(counts.get("networks", {}), ("nodes", "edges", "clusters")))


def _snapshot_list(console: Console, data: dict[str, Any]) -> None:
    snapshots = data["snapshots"]
    if not snapshots:
        console.print("no snapshots yet; `b2g snapshot` seals one")
        return
    console.print(_table(("id", "name", "sealed_at", "corpus", "networks: nodes/edges"),
                         ([s["id"], s["name"], s["sealed_at"], s["counts"].get("corpus"),
                           "\n".join(f"{kind} {n.get('nodes')}/{n.get('edges')}"
                                     for kind, n in sorted(s["counts"].get("networks", {}).items()))]
                          for s in snapshots), f"{len(snapshots)} snapshot(s), oldest first", whole=3))


def _snapshot_diff(console: Console, data: dict[str, Any]) -> None:
    console.print(f"from {_text(data['from'])} to {_text(data['to'])}; "
                  f"spec {'changed' if data['spec_changed'] else 'unchanged'}")
    for label, ids in (("works added", data["works_added"]), ("works removed", data["works_removed"])):
        console.print(f"{label}: {len(ids)}" + (f" ({_text(_first(ids))})" if ids else ""))
    changed = data["decisions_changed"]
    console.print(f"decisions changed: {len(changed)}")
    if changed:
        console.print(_table(("work", "from", "to"), ([c["work_id"], c["from"] or "none", c["to"] or "none"]
                                                      for c in changed[:_SHOWN_IDS * 2])))
    fields = ("nodes", "edges", "clusters")
    console.print(_table(("network", *fields), ([kind, *(_change(sizes.get(f, {})) for f in fields)]
                                                for kind, sizes in sorted(data["networks"].items())), "networks"))


def _change(pair: dict[str, Any]) -> str:
    """`from → to`, or the one value when it did not change (plain text: the table escapes it)."""
    before, after = ("-" if pair.get(end) is None else str(pair[end]) for end in ("from", "to"))
    return before if before == after else f"{before} → {after}"


def _snapshot_restore(console: Console, data: dict[str, Any]) -> None:
    console.print(f"snapshot {_text(data['id'])} restored into {_text(data['restored_into'])}: its networks, "
                  f"rebuilt offline, match the sealed ones byte for byte ({data['files_compared']} files compared)")


def _validate(console: Console, data: dict[str, Any]) -> None:
    checked = data["checked"]
    console.print(_table(("checked", "rows"), ([c["path"], c["rows"]] for c in checked)))
    console.print(f"valid: {len(checked)} file(s) checked, no problem found")


def _curate_dump(console: Console, data: dict[str, Any]) -> None:
    console.print(f"wrote {data['rows']} work(s) to screen to {_text(data['path'])}")
    console.print(f"fill its decision (accept, reject or empty) and reason columns, then: {_text(data['next'])}")


def _curate_apply(console: Console, data: dict[str, Any]) -> None:
    applied = data["applied"]
    console.print(f"applied {len(applied)} decision(s)" + (f": {_text(_first(applied))}" if applied else "")
                  + f"; {data['unchanged']} unchanged")
    if data["unknown"]:
        console.print(_table(("line", "names no pooled work"), ([u["line"], u["id"]] for u in data["unknown"]),
                             f"{len(data['unknown'])} row(s) skipped"))
    console.print(f"next: {_text(data['next'])}")


def _monitor(console: Console, data: dict[str, Any]) -> None:
    console.print(f"checked {data['corpus_works_checked']} corpus work(s); {data['new']} new citing work(s)"
                  + (f": {_text(_first(data['new_ids']))}" if data["new_ids"] else ""))
    console.print(f"pending candidates: {data['pending']}; report: {_text(data['report'])}")
    if data["next"]:
        console.print(f"next: {_text(data['next'])}")


def _authors(names: list[str], limit: int = 3) -> str:
    return ", ".join(names[:limit]) + (" et al." if len(names) > limit else "")


def _search(console: Console, data: dict[str, Any]) -> None:
    works = data["works"]
    if not works:
        console.print(f"no pooled work matches {_text(repr(data['query']))}")
        return
    console.print(_table(("work", "year", "state", "title", "authors", "DOI"),
                         ([w["work_id"], w["year"], w["state"], w["title"], _authors(w["authors"]), w["doi"]]
                          for w in works), f"{len(works)} work(s) matching {_text(repr(data['query']))}"))


def _evidence(console: Console, data: dict[str, Any]) -> None:
    arrow = "→" if data["directed"] else "—"
    docs = data["documents"]
    how = "from the stored evidence table" if data["computed"] == "stored" else "computed now from the corpus"
    console.print(f"{data['kind']}: {_text(data['source'])} {arrow} {_text(data['target'])}, weight "
                  f"{_number(data['weight'])}, count {_number(data['count'])}; {len(docs)} document(s), {how}")
    console.print(_table(("document", "year", "in corpus", "title or label", "authors"),
                         ([d["work_id"], d["year"], "yes" if d["in_corpus"] else "no", d["title"] or d["label"],
                           _authors(d["authors"])] for d in docs)))


def _why_ranked(why: dict[str, Any] | None) -> str | None:
    """The model's reasons in a line: the terms that weigh most, the included works it is linked to."""
    if not why:
        return None
    terms = ", ".join(t["term"] for t in why["terms"])
    linked = "; ".join(f"{link['work_id']}" + (f" ({link['name']})" if link.get("name") else "")
                       + f": {', '.join(link['how'])}" for link in why["linked_includes"][:3])
    more = why["linked_includes_total"] - min(len(why["linked_includes"]), 3)
    return " | ".join(part for part in (f"terms: {terms}" if terms else "",
                                        f"linked to includes: {linked}" + (f" and {more} more" if more > 0 else "")
                                        if linked else "") if part) or None


def _stopping(console: Console, stop: dict[str, Any] | None) -> None:
    if stop:
        style = "green" if stop["stop"] else "yellow"
        console.print(f"[{style}]{_text(stop['verdict'])}[/] ({_text(stop['method'])}; {stop['screened']} of "
                      f"{stop['to_screen']} screened, {stop['includes_found']} included; "
                      f"{stop['heuristic']['excludes_in_a_row']} excluded in a row, for information)")


def _queue(console: Console, data: dict[str, Any]) -> None:
    works = data["works"]
    console.print(f"{data['pending']} work(s) await a decision" + (f"; the first {len(works)}:" if works else "")
                  + (f" (as just before the decision on {data['before']})" if data.get("before") else ""))
    console.print(_text(data["order"]["note"]))
    for w in works:
        head = Text(f"{w['rank']}. {w['work_id']}  {w['title'] or '(no title)'}", style="bold", overflow="fold")
        console.print(Panel(Group(head, _pairs([("year", w["year"]), ("venue", w["venue"]),
                                                ("authors", _authors(w["authors"], 5) or None),
                                                ("DOI", w["doi"]), ("why here", w["why_here"]),
                                                ("score", w["score"]), ("why ranked", _why_ranked(w["why_ranked"])),
                                                ("abstract", (w["abstract"] or "")[:400] or None)]))))
    _stopping(console, data.get("stopping"))
    if works:
        console.print("decide with `b2g accept ID` or `b2g reject ID --reason TEXT`")


def _simulate(console: Console, data: dict[str, Any]) -> None:
    labels, stop = data["labels"], data["stopping"]
    console.print(f"replayed {len(data['runs'])} run(s) over {labels['matched']} labelled works ({labels['includes']} "
                  f"includes) of {_text(labels['file'])}; curves in {_text(data['table'])}")
    console.print(_table(("seed", "WSS@95", "recall@10%", "ATD", "rule stopped at", "recall there"),
                         ([r["seed"], r["wss95"], r["recall_at_10"], r["atd"], r["stopped_at"], r["recall_at_stop"]]
                          for r in data["runs"]), "runs"))
    mean = data["mean"]
    console.print(f"mean WSS@95 {mean['wss95']}, recall after 10% {mean['recall_at_10']}, ATD {mean['atd']} works; "
                  f"{_text(stop['method'])} stopped {stop['stopped']} of {stop['runs']} runs "
                  f"({stop['stopped_before_the_end']} before the end), recall target met in {stop['target_met']}")


def _networks_list(console: Console, data: dict[str, Any]) -> None:
    console.print(_table(("network", "built", "directed", "nodes", "edges", "clusters", "layout"),
                         ([n["kind"], "yes" if n["built"] else "no", n["directed"], n["nodes"], n["edges"],
                           n["clusters"], "yes" if n["layout"] else "no"] for n in data["networks"]), "networks"))


def _network(console: Console, data: dict[str, Any]) -> None:
    m = data["metrics"]
    console.print(f"{data['kind']} network: {len(data['nodes'])} nodes, {data['edges_total']} edges, "
                  f"{m.get('n_clusters')} clusters, modularity {_number(m.get('modularity'))}")
    console.print(_table(("cluster", "size", "label"), ([c["cluster"], c["size"], c["label"]]
                                                        for c in data["clusters"][:20]), "clusters"))
    shown = data["edges"][:20]
    labels = {n["id"]: n["label"] for n in data["nodes"]}
    console.print(_table(("source", "target", "weight", "count"),
                         ([_labelled(e["source"], labels), _labelled(e["target"], labels),
                           _number(e["weight"]), _number(e["count"])] for e in shown),
                         f"edges {data['edges_offset'] + 1}-{data['edges_offset'] + len(data['edges'])} "
                         f"of {data['edges_total']}, strongest first (first {len(shown)} shown)", whole=0))
    if data["edges_next"] is not None:
        console.print(f"next page: --offset {data['edges_next']}")


def _labelled(node: str, labels: dict[str, str]) -> str:
    label = labels.get(node) or ""
    return node if label in ("", node) else f"{node} {label[:30]}" + ("…" if len(label) > 30 else "")


def _prisma(console: Console, data: dict[str, Any]) -> None:
    p = data["prisma"]
    ident = p.get("identified", {})
    rows = [("identified", ident.get("total")), ("  seeds", ident.get("seeds")),
            *((f"  round {r['round']}", r["admitted"]) for r in ident.get("rounds", [])),
            ("duplicates removed", p.get("duplicates_removed")), ("screened", p.get("screened")),
            *((f"excluded by {k}", v) for k, v in sorted((p.get("excluded_by_filter") or {}).items())),
            ("excluded by people", p.get("excluded_by_people")),
            ("reinstated by people", p.get("reinstated_by_people")), ("included", p.get("included"))]
    console.print(_pairs(rows))


def _withdraw(console: Console, data: dict[str, Any]) -> None:
    gone = data["withdrawn"]
    console.print(f"withdrew {len(gone)} decision(s){': ' + _text(', '.join(gone)) if gone else ''}; "
                  f"{len(data['ids']) - len(gone)} had none")
    totals = data["decisions"]
    console.print(f"curation file: {totals['accept']} accepted, {totals['reject']} rejected; next: {_text(data['next'])}")


def _slices(console: Console, data: dict[str, Any]) -> None:
    console.print(_table(("slice", "nodes", "clusters"), ([s["slice"], s["nodes"], s["clusters"]] for s in data["slices"]),
                         f"{data['kind']} per time slice"))
    shown = [e for e in data["events"] if e["side"] == "from" or e["event"] == "emerges"]
    console.print(_table(("from", "to", "cluster", "event", "with"),
                         ([e["from_slice"], e["to_slice"], e["cluster"], e["event"], e["with"]] for e in shown),
                         "cluster events"))


RENDERERS: dict[str, Callable[[Console, dict[str, Any]], None]] = {
    "withdraw": _withdraw,
    "status": _status, "accept": _decision, "reject": _decision, "run": _run, "init": _init, "plan": _plan,
    "gui": _gui, "mcp": _mcp,
    "inspect": _inspect, "schema": _schema, "validate": _validate, "monitor": _monitor,
    "snapshot": _snapshot, "snapshot list": _snapshot_list, "snapshot diff": _snapshot_diff,
    "snapshot restore": _snapshot_restore, "search": _search, "evidence": _evidence, "queue": _queue,
    "simulate": _simulate,
    "networks": _networks_list, "network": _network, "slices": _slices, "prisma": _prisma, "curate dump": _curate_dump, "curate apply": _curate_apply,
    **{verb: partial(_phase, verb) for verb in PHASE_FOLDERS},
}


def _error(console: Console, env: dict[str, Any]) -> None:
    err = env["error"]
    code = err["code"] + (f"/{err['subcode']}" if err.get("subcode") else "")
    console.print(f"[red]error[/] ({_text(code)}, exit {env['exit_code']}): {_text(err['message'])}")
    for key, value in sorted(err.get("details", {}).items()):
        _detail(console, key, value)
    if err["retryable"]:
        console.print("hint: this may pass if you try again later (the cause is temporary: a lock or the network)")


def _detail(console: Console, key: str, value: Any) -> None:
    """One entry of an error's details: records as a table, lists of values and scalars as a line."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        columns = list(dict.fromkeys(c for v in value for c in v))
        console.print(_table(columns, ([v.get(c) for c in columns] for v in value), key))
    elif isinstance(value, list):
        console.print(f"  {escape(key)}: " + (_text(_first([str(v) for v in value])) if value else "none"))
    elif isinstance(value, dict):
        console.print(f"  {escape(key)}: " + _text(", ".join(f"{k}={v}" for k, v in sorted(value.items()))))
    else:
        console.print(f"  {escape(key)}: {_text(value)}")


def show(env: dict[str, Any]) -> None:
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    for warning in env["warnings"]:
        console.print(f"[yellow]warning:[/] {_text(warning)}")
    if env["ok"]:
        RENDERERS[env["command"]](console, env["data"])
    else:
        _error(console, env)
