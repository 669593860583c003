/** The details panel: a node's record (a work's metadata with DOI and OpenAlex links), its cluster,
 *  metrics and strongest neighbours; for an edge, or a neighbour asked about, the documents behind the
 *  link ("why linked"). */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiFailure, Cluster, Evidence, Neighbour, WorkDetails, doiUrl, get, post } from "../api";
import type { MapGraph } from "../graph";
import { plain } from "../graph";
import { ReasonDialog } from "./ReasonDialog";

export type Selection =
  | { type: "node"; id: string; missing?: boolean }
  | { type: "edge"; source: string; target: string };

const isWork = (id: string) => /^W\d+$/.test(id);
const openalex = (id: string) => `https://openalex.org/${id}`;
const fmt = (v: unknown) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toPrecision(3)) : String(v ?? "–"));

function labelOf(graph: MapGraph | null, id: string): string {
  return graph?.hasNode(id) ? plain(graph.getNodeAttribute(id, "data").label ?? id) : id;
}

/** Neighbours from the loaded graph, strongest first (when the API gives none for this network). */
function graphNeighbours(graph: MapGraph, id: string): Neighbour[] {
  const rows: Neighbour[] = [];
  graph.forEachEdge(id, (_e, attrs, source, target) => {
    const other = source === id ? target : source;
    rows.push({ id: other, label: labelOf(graph, other), weight: attrs.weight, count: attrs.count });
  });
  return rows.sort((a, b) => b.weight - a.weight || a.id.localeCompare(b.id)).slice(0, 20);
}

function EvidenceList({ kind, graph, source, target }: { kind: string; graph: MapGraph | null; source: string; target: string }) {
  const [evidence, setEvidence] = useState<Evidence | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setEvidence(null); setError(null);
    // ask in the direction the graph holds the edge
    const [a, b] = graph?.hasNode(source) && graph.hasNode(target) && graph.edge(source, target) === undefined
      && graph.edge(target, source) !== undefined ? [target, source] : [source, target];
    let current = true;
    get<Evidence>(`api/networks/${encodeURIComponent(kind)}/evidence`, { source: a, target: b })
      .then((d) => { if (current) setEvidence(d); })
      .catch((exc) => { if (current) setError(exc instanceof ApiFailure ? exc.message : String(exc)); });
    return () => { current = false; };
  }, [kind, source, target]);
  return (
    <section class="evidence" aria-label="Why linked" data-testid="evidence" data-count={evidence?.documents.length ?? ""}>
      <h4>Why linked: {labelOf(graph, source)} — {labelOf(graph, target)}</h4>
      {error && <p class="error" role="alert">{error}</p>}
      {!evidence && !error && <p>Loading…</p>}
      {evidence && (
        <>
          <p class="muted">{evidence.documents.length} document{evidence.documents.length === 1 ? "" : "s"}
            {evidence.computed === "on_demand" ? " (computed now: the evidence table was skipped at this scale)" : ""}</p>
          <ol class="docs">
            {evidence.documents.map((d) => (
              <li key={d.work_id} data-testid="evidence-doc" data-id={d.work_id}>
                <a href={openalex(d.work_id)} target="_blank" rel="noreferrer noopener">{d.title ? plain(d.title) : d.label ? plain(String(d.label)) : d.work_id}</a>
                {d.year ? ` (${d.year})` : ""}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function WorkRecord({ details }: { details: WorkDetails }) {
  const w = details.work as Record<string, unknown>;
  const doi = w.doi as string | null;
  const authors = details.work.authors.filter(Boolean) as string[];
  const state = details.screening ? (details.screening.included ? "included" : "excluded") : "not screened";
  return (
    <div class="record">
      <h3 data-testid="details-title">{plain(String(w.title ?? w.work_id))}</h3>
      <p class="muted">{authors.slice(0, 6).join(", ")}{authors.length > 6 ? `, +${authors.length - 6}` : ""}</p>
      <p>{[w.year, w.venue, w.type].filter(Boolean).join(" · ")}</p>
      <p class="links">
        {doi && <a href={doiUrl(doi)} target="_blank" rel="noreferrer noopener" data-testid="doi-link">doi:{doi}</a>}
        <a href={openalex(details.work.work_id)} target="_blank" rel="noreferrer noopener" data-testid="openalex-link">OpenAlex {details.work.work_id}</a>
      </p>
      <p>corpus: <span class={`state ${state.split(" ")[0]}`} data-testid="details-state">{state}</span>
        {details.decision && <> · decided <strong>{details.decision.decision}</strong>{details.decision.reason ? `: ${details.decision.reason}` : ""}</>}
        {details.provenance?.origin ? ` · from ${String(details.provenance.origin)}` : ""}</p>
    </div>
  );
}

export function Details({ kind, graph, clusters, selection, onSelect }: {
  kind: string | null; graph: MapGraph | null; clusters: Cluster[]; selection: Selection | null;
  onSelect: (s: Selection | null) => void;
}) {
  const [details, setDetails] = useState<WorkDetails | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [asked, setAsked] = useState<string | null>(null);
  const [rejecting, setRejecting] = useState(false);
  const [decided, setDecided] = useState<string | null>(null);
  const nodeId = selection?.type === "node" ? selection.id : null;

  /** The work shown now: an answer for another one (clicked before) is dropped. */
  const shown = useRef<string | null>(null);
  shown.current = nodeId;
  const load = (id: string) => {
    get<WorkDetails>(`api/works/${encodeURIComponent(id)}`)
      .then((d) => { if (shown.current === id) { setDetails(d); setError(null); } })
      .catch((exc) => { if (shown.current === id) setError(exc instanceof ApiFailure ? exc.message : String(exc)); });
  };
  useEffect(() => {
    setDetails(null); setError(null); setAsked(null); setDecided(null);
    if (nodeId && isWork(nodeId)) load(nodeId);
  }, [nodeId]);

  const decide = async (decision: "accept" | "reject", reason: string) => {
    if (!nodeId) return;
    try {
      await post("api/decisions", { decision, ids: [nodeId], reason, by: "gui" });
      setDecided(decision);
      load(nodeId);
    } catch (exc) {
      setError(exc instanceof ApiFailure ? exc.message : String(exc));
    }
  };

  if (!selection || !kind) {
    return <aside class="details empty" aria-label="Details" data-testid="details"><p class="muted">Click a node or an edge, or search a work.</p></aside>;
  }
  if (selection.type === "edge") {
    const key = graph?.edge(selection.source, selection.target) ?? graph?.edge(selection.target, selection.source);
    const attrs = key !== undefined && graph ? graph.getEdgeAttributes(key) : null;
    return (
      <aside class="details" aria-label="Details" data-testid="details" data-edge={`${selection.source}|${selection.target}`}>
        <button type="button" class="close ghost" aria-label="Close details" onClick={() => onSelect(null)}>×</button>
        <h3>Link</h3>
        <p><button type="button" class="linkish" onClick={() => onSelect({ type: "node", id: selection.source })}>{labelOf(graph, selection.source)}</button>
          {" — "}
          <button type="button" class="linkish" onClick={() => onSelect({ type: "node", id: selection.target })}>{labelOf(graph, selection.target)}</button></p>
        {attrs && <p>weight {fmt(attrs.weight)}{attrs.count !== null ? ` · count ${attrs.count}` : ""}</p>}
        <EvidenceList kind={kind} graph={graph} source={selection.source} target={selection.target} />
      </aside>
    );
  }

  const id = selection.id;
  const attrs = graph?.hasNode(id) ? graph.getNodeAttributes(id) : null;
  const cluster = attrs?.cluster ?? null;
  const clusterInfo = clusters.find((c) => c.cluster === cluster);
  const neighbours = details?.neighbours?.[kind] ?? (graph && attrs ? graphNeighbours(graph, id) : []);
  return (
    <aside class="details" aria-label="Details" data-testid="details" data-id={id} data-on-map={attrs ? "true" : "false"}>
      <button type="button" class="close ghost" aria-label="Close details" onClick={() => onSelect(null)}>×</button>
      {details ? <WorkRecord details={details} /> : <h3 data-testid="details-title">{labelOf(graph, id)}</h3>}
      {!details && !error && isWork(id) && <p class="muted" role="status">Loading the record…</p>}
      {error && <p class="error" role="alert">{error}</p>}
      {!attrs && <p class="notice" data-testid="not-on-map">Not on the {kind} map.</p>}
      {attrs && (
        <>
          <p data-testid="details-cluster">
            <span class="swatch" style={{ background: attrs.clusterColor }} /> cluster {cluster ?? "–"}
            {clusterInfo?.label ? `: ${clusterInfo.label}` : ""}
          </p>
          <dl class="metrics">
            {(["degree", "strength", "pagerank", "betweenness", "occurrences"] as const).map((m) => (
              <div key={m}><dt>{m}</dt><dd>{fmt(attrs.data[m])}</dd></div>
            ))}
          </dl>
        </>
      )}
      {details && isWork(id) && (
        <div class="row">
          <button type="button" onClick={() => decide("accept", "")} data-testid="details-accept">Accept</button>
          <button type="button" onClick={() => setRejecting(true)} data-testid="details-reject">Reject…</button>
          {decided && <span class="notice" role="status">{decided}ed: the corpus is stale until the next run.</span>}
        </div>
      )}
      {rejecting && <ReasonDialog title={String(details?.work.title ?? id)} onCancel={() => setRejecting(false)}
                                  onConfirm={(r) => { setRejecting(false); void decide("reject", r); }} />}
      {neighbours.length > 0 && (
        <section aria-label="Strongest neighbours">
          <h4>Strongest neighbours</h4>
          <table class="neighbours" data-testid="neighbours">
            <thead><tr><th scope="col">neighbour</th><th scope="col">weight</th><th scope="col" /></tr></thead>
            <tbody>
              {neighbours.map((n) => (
                <tr key={n.id} data-testid="neighbour" data-id={n.id}>
                  <td><button type="button" class="linkish" onClick={() => onSelect({ type: "node", id: n.id })}>{n.label ? plain(n.label) : labelOf(graph, n.id)}</button></td>
                  <td>{fmt(n.weight)}{n.direction ? <span class="muted" title={n.direction === "out" ? "this work cites it" : "it cites this work"}> {n.direction === "out" ? "→" : "←"}</span> : null}</td>
                  <td><button type="button" class="small" aria-pressed={asked === n.id} data-testid="why-linked"
                              onClick={() => setAsked(asked === n.id ? null : n.id)}>why linked</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {asked && <EvidenceList kind={kind} graph={graph} source={id} target={asked} />}
    </aside>
  );
}
