"""`accept` / `reject`: record human decisions in `config/curation.tsv`.

IDs may be given as work IDs (OpenAlex short or URL, or an export's ID), DOIs or PubMed IDs
(``PMID:123``, a pubmed.ncbi URL, or bare digits); they are resolved against the works the workspace
has pooled. An ID that names no known work fails the whole call: nothing is recorded.
The clock and the person come from the caller (the CLI), so this layer stays deterministic.
"""

from __future__ import annotations

from pathlib import Path

from .. import curation, query
from ..errors import DataError, UsageError
from ..paths import CURATION_FILE
from ..ids import normalize_doi, normalize_pmid, short_id
from .result import Result
from .workspace import Workspace

POOL = Path("results/chain/pool/works.parquet")


Known = tuple[set[str], dict[str, str], dict[str, str]]


def known_works(ws: Workspace) -> Known | None:
    """(pooled work IDs, DOI → work ID, PMID → work ID), or None before the chain phase has pooled any
    work. A pool written before works had a `pmid` column resolves no PMID."""
    path = ws.path(str(POOL))
    if not path.is_file():
        return None
    pmid = "pmid" if "pmid" in query.columns(path) else "NULL"
    found = query.rows(f"SELECT work_id, doi, {pmid} FROM read_parquet(?) ORDER BY work_id", [str(path)])
    by_doi: dict[str, str] = {}
    by_pmid: dict[str, str] = {}
    for work_id, doi, pmid_value in found:
        if doi:
            by_doi.setdefault(doi, work_id)
        if pmid_value:
            by_pmid.setdefault(pmid_value, work_id)
    return {w for w, _, _ in found}, by_doi, by_pmid


def resolve_one(raw: str, known: Known | None) -> str | None:
    """The work ID `raw` names (work ID, URL, DOI or PMID); before pooling only W-IDs are taken on trust."""
    doi, pmid = normalize_doi(raw), normalize_pmid(raw)   # bare digits are a PMID: no work ID is all digits
    work_id = short_id(raw) if doi is None and pmid is None else None
    if known is not None:
        if doi:
            return known[1].get(doi)
        if pmid:
            return known[2].get(pmid)
        return work_id if work_id in known[0] else None
    return work_id if (work_id or "").startswith("W") else None


def shown(raw: str, longest: int = 80) -> str:
    """An ID as a message quotes it: visible when empty, cut when a script passed a page of text."""
    return repr(raw if len(raw) <= longest else raw[:longest] + "…")


def resolve_ids(ws: Workspace, raw_ids: list[str], undone: str | None = "nothing was recorded"
                ) -> tuple[list[str], list[str]]:
    """(work IDs, warnings); unknown IDs raise DataError listing every one of them, saying what the call
    left `undone` (None for a read)."""
    if not raw_ids:
        raise UsageError("name at least one work ID (OpenAlex W…, a DOI or PMID:…)")
    curation.capped(raw_ids)
    known = known_works(ws)
    resolved, unknown, warnings = [], [], []
    for raw in raw_ids:
        work_id = resolve_one(raw, known)
        if work_id is None:
            unknown.append(raw)
        else:
            resolved.append(work_id)
    if unknown:
        where = "in this workspace's pool of works" if known is not None else \
            "(run `b2g run chain` first to resolve DOIs and PMIDs; OpenAlex W-IDs are accepted before that)"
        listed = ", ".join(shown(raw) for raw in unknown[:20]) + (f" and {len(unknown) - 20} more"
                                                                   if len(unknown) > 20 else "")
        raise DataError(f"unknown work ID(s) {listed} {where}" + (f"; {undone}" if undone else ""),
                        code="UNKNOWN_ID", details={"unknown": unknown})
    if known is None:
        warnings.append("no pooled works yet: the IDs were recorded without checking that they exist")
    return sorted(set(resolved)), warnings


def decide(ws: Workspace, decision: str, raw_ids: list[str], reason: str, who: str, when: str,
           wait: float = 0) -> Result:
    if decision == "reject" and not curation.says_something(reason):
        raise UsageError("reject needs --reason TEXT saying why (it goes to the PRISMA record)")
    ids, warnings = resolve_ids(ws, raw_ids)
    path = ws.path(CURATION_FILE)
    before = curation.read(path)
    after = curation.record(path, [curation.Decision(i, decision, reason, who, when) for i in ids], wait=wait)
    changed = [i for i in ids if before.get(i) is None or before[i].decision != decision]
    return Result(data={"workspace": ws.describe(), "decision": decision, "ids": ids, "changed": changed,
                        "decisions": curation.totals(after),
                        "next": "b2g run"},
                  warnings=ws.warnings() + warnings)


def withdraw(ws: Workspace, raw_ids: list[str], wait: float = 0) -> Result:
    """Remove recorded decisions: the works are pending again, as if never decided (screening's undo).
    A work ID without a decision is no error (withdrawing twice is the same as once)."""
    if not raw_ids:
        raise UsageError("name at least one work ID (OpenAlex W… or a DOI)")
    curation.capped(raw_ids)       # as accept and reject count them: every ID named, repeats too
    path = ws.path(CURATION_FILE)
    before = curation.read(path)
    direct = [curation.work_id_of(raw) for raw in raw_ids]
    by_doi, warnings = resolve_ids(ws, [r for r, w in zip(raw_ids, direct) if w is None], "nothing was withdrawn") \
        if None in direct else ([], [])
    ids = sorted({w for w in direct if w is not None} | set(by_doi))
    after = curation.withdraw(path, ids, wait=wait)
    return Result(data={"workspace": ws.describe(), "ids": ids, "withdrawn": [i for i in ids if i in before],
                        "decisions": curation.totals(after),
                        "next": "b2g run"},
                  warnings=ws.warnings() + warnings)
