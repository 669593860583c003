/** From the API's network to a graphology graph sigma can draw: positions from the layout artifact,
 *  colours by cluster or by mean year, sizes by a chosen metric. */
import Graph from "graphology";
import type { Cluster, NetEdge, NetNode, Network } from "./api";

export const SIZE_METRICS = ["strength", "degree", "pagerank", "betweenness", "occurrences"] as const;
export type SizeMetric = (typeof SIZE_METRICS)[number];

/** Twenty distinguishable colours (Tableau 20 reordered so neighbours in the list differ); clusters
 *  are numbered from 1 by size, so the largest get the first ones. The same list as
 *  src/bib2graph/palette.py (the report's maps), so a cluster has one colour everywhere. */
export const PALETTE = [
  "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
  "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#9edae5", "#dbdb8d", "#c7c7c7",
];
export const SMALL_CLUSTER = "#b9b9b9";   // palette.OTHER_COLOUR

export function clusterColour(cluster: number | null): string {
  if (cluster === null || cluster === undefined || cluster < 1) return SMALL_CLUSTER;
  return cluster <= PALETTE.length ? PALETTE[cluster - 1] : SMALL_CLUSTER;
}

/** A cluster's colour as the network phase recorded it (metrics.json), else the palette's. */
export function clusterColours(clusters: Cluster[]): (cluster: number | null) => string {
  const given = new Map(clusters.filter((c) => c.colour).map((c) => [c.cluster, c.colour as string]));
  return (cluster) => (cluster !== null && given.get(cluster)) || clusterColour(cluster);
}

/** Viridis at five stops, interpolated: the year overlay (old = purple, recent = yellow) and the density. */
const VIRIDIS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];

export function viridis(t: number): [number, number, number] {
  const x = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  const c = VIRIDIS[i].map((v, k) => Math.round(v + (VIRIDIS[i + 1][k] - v) * f));
  return [c[0], c[1], c[2]];
}

export function yearColour(t: number): string {
  const [r, g, b] = viridis(t);
  return `rgb(${r},${g},${b})`;
}

/** A node's year for the overlay and the year filter: the mean year of what it stands for, else its own. */
export function nodeYear(n: { mean_year?: number | null; year?: number | null }): number | null {
  return n.mean_year ?? n.year ?? null;
}

/** A position for a node the layout did not place: spread on a ring, the same for the same ID. */
function fallbackPosition(id: string, i: number, n: number): [number, number] {
  let h = 0;
  for (let k = 0; k < id.length; k++) h = (h * 31 + id.charCodeAt(k)) | 0;
  const angle = (2 * Math.PI * i) / Math.max(1, n);
  const r = 1 + ((h >>> 0) % 1000) / 4000;
  return [Math.cos(angle) * r, Math.sin(angle) * r];
}

/** Map labels stay short so that more of them fit; the details panel shows the whole one. */
const LABEL_MAX = 48;

/** Text without the markup OpenAlex titles sometimes carry (<i>, <sub>…). */
export function plain(text: string): string {
  return text.replace(/<\/?[a-zA-Z][^>]*>/g, "");
}

export function shortLabel(raw: string): string {
  const text = plain(raw);
  return text.length <= LABEL_MAX ? text : `${text.slice(0, LABEL_MAX - 1).trimEnd()}…`;
}

export interface NodeAttrs {
  x: number;
  y: number;
  size: number;
  label: string;
  color: string;
  clusterColor: string;
  cluster: number | null;
  year: number | null;
  data: NetNode;
}

export interface EdgeAttrs {
  size: number;
  weight: number;
  count: number | null;
  color: string;
}

export interface GraphAttrs { maxWeight?: number; edgeColour?: string; sizedBy?: SizeMetric }

export type MapGraph = Graph<NodeAttrs, EdgeAttrs, GraphAttrs>;

export function buildGraph(net: Network): { graph: MapGraph; placed: boolean } {
  const graph: MapGraph = new Graph<NodeAttrs, EdgeAttrs, GraphAttrs>({ type: net.directed ? "directed" : "undirected", multi: false });
  const unplaced = net.nodes.filter((n) => n.x === null || n.y === null).length;
  const colourOf = clusterColours(net.clusters);
  net.nodes.forEach((n, i) => {
    const [fx, fy] = n.x === null || n.y === null ? fallbackPosition(n.id, i, net.nodes.length) : [0, 0];
    const colour = colourOf(n.cluster);
    graph.addNode(n.id, {
      x: n.x ?? fx, y: n.y ?? fy, size: 3, label: shortLabel(n.label ?? n.id), color: colour, clusterColor: colour,
      cluster: n.cluster, year: nodeYear(n), data: n,
    });
  });
  let maxWeight = 0;
  for (const e of net.edges) maxWeight = Math.max(maxWeight, e.weight);
  graph.setAttribute("maxWeight", maxWeight);
  // the more edges, the fainter each: a dense network stays a picture of its nodes
  const alpha = net.edges.length > 20000 ? 0.25 : net.edges.length > 3000 ? 0.4 : 0.6;
  graph.setAttribute("edgeColour", `rgba(110,118,135,${alpha})`);
  addEdges(graph, net.edges);
  return { graph, placed: unplaced === 0 };
}

/** Edges into the graph, thicker for heavier (relative to the strongest of the first page). */
export function addEdges(graph: MapGraph, edges: NetEdge[]): void {
  const maxWeight = (graph.getAttribute("maxWeight") as number) || 1;
  const color = graph.getAttribute("edgeColour") ?? "#c8ccd4";
  for (const e of edges) {
    if (!graph.hasNode(e.source) || !graph.hasNode(e.target) || graph.hasEdge(e.source, e.target)) continue;
    graph.addEdge(e.source, e.target, {
      weight: e.weight, count: e.count, size: 0.3 + 2.2 * Math.sqrt(Math.min(1, e.weight / maxWeight)), color,
    });
  }
}

/** Node sizes from `metric`, by square root so that hubs do not hide the rest. */
export function applySizes(graph: MapGraph, metric: SizeMetric): void {
  let max = 0;
  graph.forEachNode((_id, a) => { max = Math.max(max, Number(a.data[metric] ?? 0)); });
  graph.updateEachNodeAttributes((_id, a) => ({ ...a, size: 2 + 12 * Math.sqrt(Number(a.data[metric] ?? 0) / (max || 1)) }),
    { attributes: ["size"] });
}

/** The year span of the nodes that have one. */
export function yearSpan(graph: MapGraph): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  graph.forEachNode((_id, a) => {
    if (a.year !== null) { lo = Math.min(lo, a.year); hi = Math.max(hi, a.year); }
  });
  return lo <= hi ? [Math.floor(lo), Math.ceil(hi)] : null;
}
