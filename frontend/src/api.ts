/** The local API client: every call carries the session token and unwraps the schema "1" envelope. */

export interface ApiError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface Envelope<T> {
  schema: "1";
  ok: boolean;
  command: string;
  exit_code: number;
  data: T;
  warnings: string[];
  error: ApiError | null;
}

/** A failed call: the envelope's error, or a transport failure described the same way. */
export class ApiFailure extends Error {
  constructor(public status: number, public error: ApiError, public warnings: string[] = []) {
    super(`${error.code}: ${error.message}`);
  }
}

/** The token comes in the URL the server printed (?token=…); kept for reloads of this tab only. */
function readToken(): string {
  const fromUrl = new URLSearchParams(window.location.search).get("token");
  if (fromUrl) {
    sessionStorage.setItem("b2g_token", fromUrl);
    return fromUrl;
  }
  return sessionStorage.getItem("b2g_token") ?? "";
}

export const token = readToken();

/** `https://doi.org/<doi>`, the DOI %-encoded where a URL needs it (`#` would cut it short, `%` start an
 *  escape), as the export files write their links (export/common.py, `doi_url`). */
export function doiUrl(doi: string): string {
  return "https://doi.org/" + doi.replace(/[^A-Za-z0-9:/;()@!$&'*,=._~-]/gu, (c) => encodeURIComponent(c));
}

/** Paths are relative ("api/…") so the app works wherever the server mounts it. */
export function apiUrl(path: string, params: Record<string, string | number | undefined> = {}): string {
  const url = new URL(path.replace(/^\//, ""), document.baseURI);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") url.searchParams.set(key, String(value));
  }
  return url.toString();
}

async function call<T>(method: string, path: string, params: Record<string, string | number | undefined> = {},
                       body?: unknown): Promise<Envelope<T>> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(apiUrl(path, params), {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin",
    });
  } catch (exc) {
    throw new ApiFailure(0, { code: "UNREACHABLE", message: `the b2g server does not answer (${exc}); is \`b2g gui\` still running?` });
  }
  let envelope: Envelope<T>;
  try {
    envelope = (await response.json()) as Envelope<T>;
  } catch {
    throw new ApiFailure(response.status, { code: "BAD_RESPONSE", message: `HTTP ${response.status} without an envelope` });
  }
  if (!envelope.ok || !response.ok) {
    throw new ApiFailure(response.status, envelope.error ?? { code: "UNKNOWN", message: `HTTP ${response.status}` },
                         envelope.warnings);
  }
  return envelope;
}

export const get = <T>(path: string, params: Record<string, string | number | undefined> = {}) =>
  call<T>("GET", path, params).then((e) => e.data);
export const post = <T>(path: string, body: unknown) => call<T>("POST", path, {}, body).then((e) => e.data);
export const del = <T>(path: string) => call<T>("DELETE", path).then((e) => e.data);

/** Server-sent events of the run; EventSource cannot send headers, so the token rides in the query. */
export function runEvents(): EventSource {
  return new EventSource(apiUrl("api/run/events", { token }), { withCredentials: true });
}

// ---- the shapes the views read (docs/api.md) ----

export interface Job {
  job: string;
  rule: string;
  state: "complete" | "stale" | "missing";
  reasons: string[];
}

export interface Status {
  up_to_date: boolean;
  phases: Record<string, "complete" | "stale" | "missing">;
  jobs: Job[];
  pending_jobs: string[];
  counts: Record<string, number | null | Record<string, { nodes: number | null; edges: number | null }>> & {
    networks: Record<string, { nodes: number | null; edges: number | null }>;
  };
  curation_available: string[];
}

export interface RunJob {
  id: string | null;
  state: "idle" | "running" | "succeeded" | "failed" | "cancelled";
  target: string | null;
  progress: { done: number; total: number } | null;
  log: string[];
  result: Envelope<Record<string, unknown>> | null;
}

export interface NetworkSummary {
  kind: string;
  directed: boolean;
  nodes: number | null;
  edges: number | null;
  clusters: number | null;
  definition?: string;
  layout?: unknown;
}

export interface NetNode {
  id: string;
  label: string | null;
  cluster: number | null;
  x: number | null;
  y: number | null;
  year: number | null;
  mean_year: number | null;
  in_corpus: boolean | null;
  doi: string | null;
  occurrences: number | null;
  degree: number | null;
  strength: number | null;
  pagerank: number | null;
  betweenness: number | null;
}

export interface NetEdge {
  source: string;
  target: string;
  weight: number;
  count: number | null;
}

/** A label term of a cluster with its score (LLR or c-TF-IDF) and how many works carry it. */
export interface ClusterTerm { term: string; score: number | null; works: number | null }

/** One of a cluster's most central (pagerank) or most cited (citations) works. */
export interface ClusterWork { node_id: string; label: string | null; pagerank?: number | null; citations?: number | null }

/** A cluster of two or more nodes and its table (metrics.json; fields an older build lacks are null or []). */
export interface Cluster {
  cluster: number;
  size: number;
  label: string | null;
  colour?: string | null;
  terms?: ClusterTerm[];
  mean_year?: number | null;
  median_year?: number | null;
  internal_weight?: number | null;
  external_weight?: number | null;
  silhouette?: number | null;
  central?: ClusterWork[];
  cited?: ClusterWork[];
}

export interface Network {
  kind: string;
  directed: boolean;
  nodes: NetNode[];
  clusters: Cluster[];
  metrics: Record<string, unknown>;
  edges: NetEdge[];
  edges_total: number;
  edges_offset: number;
  edges_next: number | null;
}

/** VOSviewer's item density of a network's layout (GET api/networks/KIND/density): values[r][c] is row r
 *  (y, bottom to top) and column c (x, left to right) of a size × size grid over extent, max 1. */
export interface Density {
  kind: string;
  metric: string;
  weighted: boolean;
  nodes: number;
  size: number;
  extent: [number, number];
  bandwidth: number;
  values: number[][];
}

/** A network in each time slice (`b2g slices`): members and their clusters per slice. */
export interface Slices {
  kind: string;
  slices: { slice: string; start: number; end: number; nodes: number; clusters: number; members: [string, number][] }[];
}

export interface Neighbour {
  id: string;
  label: string | null;
  weight: number;
  count: number | null;
  /** citation only: `out` when the work cites it, `in` when it cites the work */
  direction?: "out" | "in";
}

export interface WorkDetails {
  work: Record<string, unknown> & { work_id: string; authors: (string | null)[] };
  provenance: Record<string, unknown>;
  screening: Record<string, unknown> | null;
  decision: Record<string, string> | null;
  networks: Record<string, Record<string, unknown>>;
  neighbours?: Record<string, Neighbour[]>;
}

export interface Evidence {
  kind: string;
  source: string;
  target: string;
  documents: (Record<string, unknown> & { work_id: string; title: string | null; year: number | null; label: string | null })[];
  computed: "stored" | "on_demand";
}

export interface SearchHit {
  work_id: string;
  title: string | null;
  year: number | null;
  doi: string | null;
  authors: string[] | string | null;
  venue: string | null;
  state: "included" | "excluded" | "pending";
}

export interface QueueWork {
  rank: number;
  work_id: string;
  doi: string | null;
  title: string | null;
  year: number | null;
  venue: string | null;
  authors: string[] | string | null;
  abstract: string | null;
  why_here: string | Record<string, unknown> | null;
  score: number | null;
  why_ranked: {
    terms: { term: string; weight: number }[];
    linked_includes: { work_id: string; name: string | null; how: string[]; strength: number }[];
    linked_includes_total: number;
  } | null;
}

/** The stopping rule's verdict (`b2g queue`, `b2g status`). */
export interface Stopping {
  method: string;
  recall_target: number;
  confidence: number;
  screened: number;
  to_screen: number;
  includes_found: number;
  p_value: number;
  stop: boolean;
  more_to_screen: number | null;
  verdict: string;
  heuristic: { excludes_in_a_row: number; note: string };
}

export interface QueueAnswer {
  pending: number;
  order: { by: "model" | "work_id"; includes: number; excludes: number; note: string };
  stopping: Stopping;
  works: QueueWork[];
}
