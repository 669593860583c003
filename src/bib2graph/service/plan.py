"""`plan`: what a run will ask OpenAlex and what it will cost, before spending anything.

Computed from the spec, the seed files, the seeds table and the raw-response store alone (no request
is sent): seed look-ups are exact; for the first chaining round, the seeds' reference lists and
`cited_by_count` (read from stored responses when the store holds the seeds) bound the backward
look-ups and the `cites:` pages. The seeds are those given by ID, and after `b2g run seed` every seed
(by DOI, PMID, query or file too: results/seed/seeds.parquet); before it, seeds not given by ID are
said in a warning, as the round is then priced without them. Later rounds depend on what earlier ones
admit and are not priced. The prices are those of asking afresh: a run reuses what the raw store holds,
and a re-run asks nothing already answered.
"""

from __future__ import annotations

from typing import Any

from .. import spec as spec_mod
from ..sources.files import read_seed_entries
from ..sources.openalex_cost import PRICES_USD, plan_requests
from ..sources.openalex_source import STORE_DIR
from ..ids import normalize_doi, normalize_pmid, short_id
from ..sources.store import RawStore
from .preflight import check_spec
from .result import Result
from .workspace import Workspace


def _stored_works(store: RawStore) -> dict[str, dict[str, Any]]:
    works: dict[str, dict[str, Any]] = {}
    for entry in store.entries():
        body = entry.get("body")
        items = body.get("results") if isinstance(body, dict) and "results" in body else [body]
        for work in items or []:
            if isinstance(work, dict) and short_id(work.get("id")):
                works.setdefault(short_id(work.get("id")), work)
    return works


def _cited_ids(ws: Workspace, spec: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The DOIs of cited works outside the source files, and the PMIDs of those without a DOI: from the
    `sources` job's table when it is there, else read from the files now (locally: nothing is asked)."""
    import pandas as pd

    from ..query import columns as columns_of

    table = ws.path("results/sources/cited.parquet")
    if table.is_file():
        columns = [c for c in ("work_id", "doi", "pmid") if c in columns_of(table)]
        cited = pd.read_parquet(table, columns=columns)
    else:
        from ..sources.ingest import ingest

        source = spec["source"]
        cited = ingest([spec_mod.resolve_path(ws.root, f) for f in source["files"]], source["files"],
                       [source["formats"].get(f) for f in source["files"]]).cited
    cited = cited[cited["work_id"].str.startswith("REF:")]
    pmids = cited.loc[cited["doi"].isna(), "pmid"].dropna() if "pmid" in cited else []
    return sorted(set(cited["doi"].dropna())), sorted(set(pmids))


def _files_plan(ws: Workspace, spec: dict[str, Any]) -> Result:
    """A files source asks nothing, unless `source.resolve: openalex` looks up its cited DOIs."""
    if spec["source"]["resolve"] != "openalex":
        return Result(data={"workspace": ws.describe(), "source": "files", "requests": {}, "cost_usd": 0.0,
                            "note": "a files source makes no requests"}, warnings=ws.warnings())
    dois, pmids = _cited_ids(ws, spec)
    lookups = plan_requests(dois=dois, pmids=pmids, per_page=spec["source"]["openalex"]["per_page"])
    return Result(data={"workspace": ws.describe(), "source": "files", "requests": lookups.requests,
                        "cost_usd": round(lookups.cost_usd, 6), "prices_usd_per_request": PRICES_USD,
                        "note": f"source.resolve: openalex looks up {len(dois)} cited DOIs and {len(pmids)} PMIDs "
                                "in batches of 100; answers already in the raw store are not asked again",
                        "basis": {"cited_dois": len(dois), "cited_pmids": len(pmids)}}, warnings=ws.warnings())


def _resolved_seeds(ws: Workspace) -> list[str]:
    """The seeds `b2g run seed` resolved (none before it has run)."""
    from ..query import column

    table = ws.path("results/seed/seeds.parquet")
    return sorted(column(table, "work_id")) if table.is_file() else []


def make_plan(ws: Workspace) -> Result:
    spec = check_spec(ws)
    if spec["source"]["kind"] != "openalex":
        return _files_plan(ws, spec)
    seed = spec["seed"]
    entries = [e for f in seed["files"] for e in read_seed_entries(spec_mod.resolve_path(ws.root, f))]
    ids = sorted({short_id(x) or x for x in seed["ids"]} | {e.work_id for e in entries if e.work_id})
    seeds = _resolved_seeds(ws)
    dois = sorted({d for d in [normalize_doi(x) for x in seed["dois"]] + [e.doi for e in entries] if d})
    pmids = sorted({p for p in (normalize_pmid(x) for x in seed.get("pmids", [])) if p})
    store_dir = ws.path(str(STORE_DIR))
    stored = _stored_works(RawStore(store_dir)) if store_dir.is_dir() else {}
    seeded = sorted(set(ids) | set(seeds))            # the seeds the first round chains from
    known = [stored[i] for i in seeded if i in stored]
    per_page = spec["source"]["openalex"]["per_page"]
    seeding = plan_requests(ids=ids, dois=dois, pmids=pmids, per_page=per_page,
                            searches=[seed["max_results"]] if seed["query"] else [])
    chain = spec["chain"]
    refs = sorted({short_id(r) for w in known for r in w.get("referenced_works") or []} - set(seeded))
    citing = sum(int(w.get("cited_by_count") or 0) for w in known)
    backward = chain["direction"] in ("backward", "both") and chain["depth"] >= 1
    forward = chain["direction"] in ("forward", "both") and chain["depth"] >= 1
    round1 = plan_requests(ids=refs if backward else 0, cited=seeded if forward else 0,
                           citing_works=citing if forward else 0, per_page=per_page)
    total = {k: seeding.requests[k] + round1.requests[k] for k in seeding.requests}
    data = {
        "workspace": ws.describe(), "source": "openalex", "per_page": per_page,
        "prices_usd_per_request": PRICES_USD,
        "seeding": seeding.as_dict(), "chain_round_1": round1.as_dict(),
        "requests": total, "cost_usd": round(seeding.cost_usd + round1.cost_usd, 6),
        "basis": {"seed_ids": len(ids), "seed_dois": len(dois), "query": bool(seed["query"]),
                  "seeds_resolved": len(seeds),
                  "seeds_in_store": len(known), "references_of_seeds": len(refs),
                  "citing_works_upper_bound": citing, "stored_responses": len(RawStore(store_dir))
                  if store_dir.is_dir() else 0},
    }
    warnings = ws.warnings()
    if not seeds and (dois or pmids or seed["query"] or seed.get("all")):
        warnings.append("the seeds given by DOI, PMID or query are not resolved yet, so the first chaining round "
                        "is priced without them; `b2g run seed` resolves them cheaply, then `b2g plan` prices it")
    if seeded and len(known) < len(seeded):
        warnings.append(f"{len(seeded) - len(known)} of {len(seeded)} seeds are not in the raw store yet: the first "
                        "chaining round is priced from the stored ones only; `b2g run seed` fetches them cheaply")
    if chain["depth"] > 1:
        warnings.append("rounds after the first depend on what the first admits and are not priced")
    return Result(data=data, warnings=warnings)
