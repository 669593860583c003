"""The checks each job runs on its slice of the spec before doing any work.

The JSON Schema states what one value may be; these state what values mean together (a query needs
the OpenAlex source, a year range must not be empty, a filter expression must parse, Louvain has no CPM).
Every job calls `check` first, and the preflight of `b2g validate` and `b2g run` calls it for every job
of the DAG with the very params the rule will receive, so a spec that validates never fails in a job
on a parameter. Errors are SpecErrors naming the key and its place in the spec.
"""

from __future__ import annotations

from typing import Any, Callable

from .errors import SpecError
from .expressions import compile_expression
from .ids import normalize_pmid
from .networks.params import resolve_communities, resolve_labels, resolve_metrics, resolve_params

SEED_SUFFIXES = (".bib", ".ris", ".json", ".jsonl", ".jsonl.gz", ".json.gz", ".zip")


def _spec_error(message: str, place: str, code: str = "SPEC_INVALID") -> SpecError:
    return SpecError(message, code=code, details={"key": place.rsplit(".", 1)[-1], "place": place})


def _snapshot(source: dict[str, Any]) -> None:
    """A snapshot source needs its folder (checked where the job is given it), a year range that is one and
    an include expression that parses."""
    snapshot = source.get("snapshot", {})
    if source["kind"] == "snapshot" and "path" in snapshot and not snapshot["path"]:
        raise _spec_error("source.snapshot.path is not set: give the folder holding the snapshot's "
                          "data/jsonl/works/ (or data/works/)",
                          "source.snapshot.path")
    low, high = snapshot.get("year_min"), snapshot.get("year_max")
    if source["kind"] == "snapshot" and low is not None and high is not None and low > high:
        raise _spec_error(f"source.snapshot.year_min ({low}) is after source.snapshot.year_max ({high}): no work "
                          "could be selected", "source.snapshot.year_min")
    if source["kind"] == "snapshot" and snapshot.get("include"):
        compile_expression(snapshot["include"], "source.snapshot.include")


def _source(source: dict[str, Any]) -> None:
    _snapshot(source)
    if source["kind"] == "snapshot":
        if source.get("files"):
            raise _spec_error("source.files is read only with `source.kind: files`; a snapshot is read from "
                              "source.snapshot.path", "source.files")
        return
    if source["kind"] == "files" and not source["files"]:
        raise _spec_error("source.files is empty: list the files that form the universe (OpenAlex works "
                          ".json/.jsonl/.zip, or Web of Science, Scopus, Lens, RIS, BibTeX exports), or use "
                          "`source.kind: openalex`", "source.files")
    for name in sorted(source.get("formats", {})):
        if name not in source["files"]:
            raise _spec_error(f"source.formats names {name!r}, which is not in source.files; write the path "
                              "exactly as source.files does", f"source.formats.{name}")
    if source["kind"] == "openalex" and source["files"]:
        raise _spec_error("source.files is read only with `source.kind: files`; remove it or change the kind",
                          "source.files")


def _seed(params: dict[str, Any]) -> None:
    seed, source = params["seed"], params["source"]
    _source(source)
    if not (seed["ids"] or seed["dois"] or seed.get("pmids") or seed["query"] or seed["files"] or seed.get("all")):
        raise _spec_error("no seeds: give seed.ids, seed.dois, seed.pmids, seed.files, seed.query or seed.all", "seed")
    bad = [str(p) for p in seed.get("pmids", []) if normalize_pmid(p) is None]
    if bad:
        raise _spec_error(f"seed.pmids: not a PubMed ID: {', '.join(bad[:5])}", "seed.pmids")
    if seed.get("all") and source["kind"] not in ("files", "snapshot"):
        raise _spec_error("seed.all makes every work of the universe a seed and needs `source.kind: files` "
                          "or `snapshot`",
                          "seed.all", code="SPEC_UNSUPPORTED")
    if seed["query"] is not None and not seed["query"].strip():
        raise _spec_error("seed.query is empty; remove it or write a search", "seed.query")
    if seed["query"] and source["kind"] != "openalex":
        raise _spec_error("seed.query searches OpenAlex and needs `source.kind: openalex`; with a files source "
                          "list the seeds under seed.ids, seed.dois or seed.files", "seed.query",
                          code="SPEC_UNSUPPORTED")
    for number, name in enumerate(seed["files"]):
        if not name.lower().endswith(SEED_SUFFIXES):
            raise _spec_error(f"seed.files.{number} {name!r}: a seed file is BibTeX (.bib), RIS (.ris) or "
                              "OpenAlex JSON (.json, .jsonl, .jsonl.gz, .zip)", f"seed.files.{number}")


def _chain(params: dict[str, Any]) -> None:
    _source(params["source"])


def _filter(params: dict[str, Any]) -> None:
    spec = params["filter"]
    if spec["year_min"] is not None and spec["year_max"] is not None and spec["year_min"] > spec["year_max"]:
        raise _spec_error(f"filter.year_min ({spec['year_min']}) is after filter.year_max ({spec['year_max']}): "
                          "no work could pass", "filter.year_min")
    for key in ("include", "exclude"):
        if spec[key] is not None:
            compile_expression(spec[key], f"filter.{key}")


def _network(params: dict[str, Any]) -> None:
    resolve_params(params["kind"], params["network"])
    resolve_communities(params["communities"])
    resolve_metrics(params.get("metrics"))


def _clusters(params: dict[str, Any]) -> None:
    resolve_params(params["kind"], params["network"])
    resolve_labels(params["labels"])


def _time(params: dict[str, Any]) -> None:
    time = params["time"]
    start, end = time["range"]["start"], time["range"]["end"]
    if start is not None and end is not None and start > end:
        raise _spec_error(f"time.range.start ({start}) is after time.range.end ({end})", "time.range")
    missing = [k for k in time.get("networks", []) if k not in params.get("networks", time["networks"])]
    if missing:
        raise _spec_error(f"time.networks names {', '.join(missing)}, which networks does not build; add it "
                          "to networks or remove it from time.networks", "time.networks")


def _slices(params: dict[str, Any]) -> None:
    _network(params)
    _time(params)


def _screening(params: dict[str, Any]) -> None:
    """The screening model needs something to look at: text fields (the text and latent blocks read them),
    or the network or provenance block."""
    model = params["screening"]["model"]
    if not model["text"]["fields"] and not model["network"]["enabled"] and not model["provenance"]["enabled"]:
        raise _spec_error("screening.model sees nothing: give text.fields or enable network or provenance",
                          "screening.model")


CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "trends": _time, "slices": _slices,
    "cited": _chain, "sources": lambda params: _source({"kind": "files", **params["source"]}),
    "snapshot_part": lambda params: _source(params["source"]),
    "seed": _seed, "chain": _chain, "corpus": _filter, "network": _network, "clusters": _clusters,
    "stability": lambda params: resolve_communities(params["communities"]),
    "layout": lambda params: None, "export": lambda params: None, "report": _screening, "simulate": _screening,
}


def check(rule: str, params: dict[str, Any]) -> None:
    """Raise a SpecError when the params a `rule` job receives cannot work; return quietly otherwise."""
    CHECKS[rule](params)
