/** Map: one network drawn with sigma.js at the layout's positions; clusters coloured (with their legend),
 *  the year overlay or the density view; node size by a metric; filters by cluster and years; search that
 *  flies to a work; a details panel for the selected node or edge; the cluster table below. */
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import Sigma from "sigma";
import type { EdgeDisplayData, NodeDisplayData } from "sigma/types";
import type { NodeLabelDrawingFunction } from "sigma/rendering";
import { ApiFailure, Density, Network, NetworkSummary, Slices, get } from "../api";
import { EdgeAttrs, MapGraph, NodeAttrs, SIZE_METRICS, SizeMetric, addEdges, applySizes, buildGraph, clusterColour, yearColour, yearSpan } from "../graph";
import { labelDrawer } from "../labels";
import { Details, Selection } from "../components/Details";
import { SearchBox } from "../components/SearchBox";
import { Legend } from "../components/Legend";
import { ClusterTable } from "../components/ClusterTable";
import { DensityLayer } from "../components/DensityLayer";

/** Edges asked per page, strongest first: a 100k-edge network comes whole, a larger one a page at a time. */
const EDGE_PAGE = 100_000;

/** Networks above this many edges hide their edges while the camera moves, to keep panning smooth. */
const HIDE_EDGES_ON_MOVE = 20000;

type Overlay = "clusters" | "years" | "density";

/** Nodes in the density view: small light dots, so that the density under them reads (labels stay). */
const DENSITY_NODE = "rgba(255,255,255,0.8)";
const densitySize = (size: number) => Math.max(1.5, size / 2);

interface Filters {
  cluster: number | null;
  yearFrom: number | null;
  yearTo: number | null;
}

declare global {
  interface Window {
    /** For tests and benchmarks: what the map shows now. */
    __b2g?: { kind: string | null; graph: MapGraph | null; sigma: Sigma<NodeAttrs, EdgeAttrs> | null; ready: boolean;
              loadedAt: number | null; firstFrameAt: number | null; selection: Selection | null;
              slice?: string | null };
  }
}

/** The network to show: the URL's (#map?kind=…), else the last one shown in this tab. */
function initialKind(): string | null {
  const query = window.location.hash.split("?")[1];
  return (query ? new URLSearchParams(query).get("kind") : null) ?? sessionStorage.getItem("b2g_kind");
}

/** Without a choice, the first of these that has nodes: the networks of the corpus works first. */
const PREFERRED = ["coupling", "citation", "cocitation", "keywords", "coauthorship", "institutions"];

function defaultKind(networks: NetworkSummary[]): string | null {
  const usable = networks.filter((n) => (n.nodes ?? 0) > 0);
  const ranked = [...usable].sort((a, b) => rank(a.kind) - rank(b.kind));
  return ranked[0]?.kind ?? networks[0]?.kind ?? null;
}

const rank = (kind: string) => (PREFERRED.includes(kind) ? PREFERRED.indexOf(kind) : PREFERRED.length);

/** What the density view weighs, in words: the metric, or every node alike when no node has a positive one. */
function densityTitle(density: Density | null): string {
  if (!density) return "density: loading…";
  return density.weighted ? `density by ${density.metric}: low` : `density by count (no positive ${density.metric}): low`;
}

function expose(patch: Partial<NonNullable<Window["__b2g"]>>) {
  window.__b2g = { kind: null, graph: null, sigma: null, ready: false, loadedAt: null, firstFrameAt: null,
                   selection: null, ...window.__b2g, ...patch };
}

export function MapView({ generation }: { generation: number }) {
  const [networks, setNetworks] = useState<NetworkSummary[] | null>(null);
  const [kind, setKind] = useState<string | null>(initialKind());
  const [net, setNet] = useState<Network | null>(null);
  const [graph, setGraph] = useState<MapGraph | null>(null);
  const [placed, setPlaced] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [metric, setMetric] = useState<SizeMetric>("strength");
  const [overlay, setOverlay] = useState<Overlay>("clusters");
  const [density, setDensity] = useState<Density | null>(null);
  const [renderer, setRenderer] = useState<Sigma<NodeAttrs, EdgeAttrs> | null>(null);
  const [tableOpen, setTableOpen] = useState(false);
  const [filters, setFilters] = useState<Filters>({ cluster: null, yearFrom: null, yearTo: null });
  const [selection, setSelection] = useState<Selection | null>(null);
  const [timeline, setTimeline] = useState<Slices | null>(null);
  const [sliceAt, setSliceAt] = useState(-1);   // -1: all years (the whole network)
  const slice = useMemo(() => {
    const chosen = timeline && sliceAt >= 0 ? timeline.slices[sliceAt] : null;
    return chosen ? { name: chosen.slice, members: new Map(chosen.members) } : null;
  }, [timeline, sliceAt]);
  const container = useRef<HTMLDivElement>(null);
  const sigma = useRef<Sigma<NodeAttrs, EdgeAttrs> | null>(null);
  // the reducers read these refs, so a change needs only a refresh, not a new renderer
  const view = useRef({ filters, selection, overlay, slice, span: null as [number, number] | null });
  view.current = { ...view.current, filters, selection, overlay, slice };
  /** What the renderer last drew with: an effect redraws only when one of these changed. */
  const drawn = useRef({ filters, selection, overlay, slice });

  useEffect(() => {
    get<{ networks: NetworkSummary[] }>("api/networks").then((d) => {
      setNetworks(d.networks);
      setKind((k) => (k && d.networks.some((n) => n.kind === k) ? k : defaultKind(d.networks)));
    }).catch((exc) => setError(exc instanceof ApiFailure ? exc.message : String(exc)));
  }, [generation]);

  useEffect(() => {
    if (!kind) return;
    let cancelled = false;
    setLoading(true);
    expose({ ready: false, kind });
    get<Network>(`api/networks/${encodeURIComponent(kind)}`, { edges: EDGE_PAGE }).then((d) => {
      if (cancelled) return;
      const built = buildGraph(d);
      applySizes(built.graph, metric);
      built.graph.setAttribute("sizedBy", metric);
      view.current.span = yearSpan(built.graph);
      setNet(d);
      setPlaced(built.placed);
      setGraph(built.graph);
      setError(null);
      setSelection((s) => (s && s.type === "node" && !built.graph.hasNode(s.id) ? { ...s, missing: true } : s));
    }).catch((exc) => {
      if (!cancelled) { setError(exc instanceof ApiFailure ? exc.message : String(exc)); setGraph(null); setNet(null); }
    }).finally(() => { if (!cancelled) setLoading(false); });
    setTimeline(null);
    setSliceAt(-1);
    get<Slices>(`api/networks/${encodeURIComponent(kind)}/slices`).then((d) => {
      if (!cancelled) setTimeline(d.slices.length ? d : null);
    }).catch(() => { /* not sliced in time (time: in the spec): no slider */ });
    return () => { cancelled = true; };
    // metric is applied to the new graph here and to the current one by its own effect
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [kind, generation]);

  // one renderer per graph
  useEffect(() => {
    if (!graph || !container.current) return;
    const loadedAt = performance.now();
    const labels = labelDrawer();
    const renderer = new Sigma<NodeAttrs, EdgeAttrs>(graph, container.current, {
      allowInvalidContainer: true,
      enableEdgeEvents: true,
      hideEdgesOnMove: graph.size > HIDE_EDGES_ON_MOVE,
      labelDensity: 1,
      labelGridCellSize: 100,
      labelRenderedSizeThreshold: 6,
      labelSize: 12,
      defaultDrawNodeLabel: labels.draw as NodeLabelDrawingFunction<NodeAttrs, EdgeAttrs>,
      labelFont: "system-ui, sans-serif",
      zIndex: true,
      minCameraRatio: 0.02,
      maxCameraRatio: 4,
      nodeReducer: (node, attrs) => {
        const { filters: f, selection: s, overlay: o, span, slice: t } = view.current;
        const a = attrs;
        const out: Record<string, unknown> = { ...attrs };
        if (t) {   // a time slice: its members only, coloured by their cluster in that slice
          const inSlice = t.members.get(node);
          if (inSlice === undefined) out.hidden = true;
          else out.color = clusterColour(inSlice);
        }
        if (f.cluster !== null && a.cluster !== f.cluster) out.hidden = true;
        if ((f.yearFrom !== null || f.yearTo !== null)
            && (a.year === null || (f.yearFrom !== null && a.year < f.yearFrom) || (f.yearTo !== null && a.year > f.yearTo))) {
          out.hidden = true;
        }
        if (o === "years") {
          out.color = a.year === null || !span ? "#d0d0d0" : yearColour((a.year - span[0]) / Math.max(1, span[1] - span[0]));
        } else if (o === "density") { out.color = DENSITY_NODE; out.size = densitySize(a.size); }
        if (s && s.type === "node" && graph.hasNode(s.id)) {
          if (node === s.id) { out.highlighted = true; out.zIndex = 2; out.forceLabel = true; }
          else if (graph.areNeighbors(node, s.id)) { out.zIndex = 1; }
          else { out.color = "#e4e6ea"; out.label = ""; out.zIndex = 0; }
        } else if (s && s.type === "edge") {
          if (node === s.source || node === s.target) { out.highlighted = true; out.forceLabel = true; out.zIndex = 2; }
        }
        return out as Partial<NodeDisplayData>;
      },
      edgeReducer: (edge, attrs) => {
        const { selection: s, slice: t, overlay: o } = view.current;
        const out: Record<string, unknown> = { ...attrs };
        if (o === "density" && !s) out.hidden = true;   // the density shows where the weight is, not the links
        if (t) {
          const [a, b] = graph.extremities(edge);
          if (!t.members.has(a) || !t.members.has(b)) out.hidden = true;
        }
        if (s && s.type === "node" && graph.hasNode(s.id)) {
          if (graph.hasExtremity(edge, s.id)) { out.color = "#5b6577"; out.zIndex = 1; } else out.hidden = true;
        } else if (s && s.type === "edge") {
          const [a, b] = graph.extremities(edge);
          if ((a === s.source && b === s.target) || (a === s.target && b === s.source)) {
            out.color = "#d62728"; out.size = Math.max(2, attrs.size * 2); out.zIndex = 2;
          }
        }
        return out as Partial<EdgeDisplayData>;
      },
    });
    labels.attach(renderer);
    sigma.current = renderer;
    setRenderer(renderer);
    drawn.current = { filters: view.current.filters, selection: view.current.selection, overlay: view.current.overlay,
                      slice: view.current.slice };
    // sigma drew the first frame in its constructor; the browser shows it at the next animation frame
    let alive = true;
    requestAnimationFrame(() => {
      if (!alive) return;
      expose({ ready: true, firstFrameAt: performance.now(), loadedAt });
      container.current?.setAttribute("data-ready", "true");
    });
    // sigma follows the window's resizes only; the stage also shrinks when the cluster table opens
    let size = `${container.current.offsetWidth}x${container.current.offsetHeight}`;
    const observer = new ResizeObserver(() => {
      const now = container.current ? `${container.current.offsetWidth}x${container.current.offsetHeight}` : size;
      if (now !== size) { size = now; renderer.scheduleRefresh(); }
    });
    observer.observe(container.current);
    renderer.on("clickNode", ({ node }) => setSelection({ type: "node", id: node }));
    renderer.on("clickEdge", ({ edge }) => {
      const [source, target] = graph.extremities(edge);
      setSelection({ type: "edge", source, target });
    });
    renderer.on("clickStage", () => setSelection(null));
    renderer.on("enterNode", () => { if (container.current) container.current.style.cursor = "pointer"; });
    renderer.on("leaveNode", () => { if (container.current) container.current.style.cursor = ""; });
    renderer.on("enterEdge", () => { if (container.current) container.current.style.cursor = "pointer"; });
    renderer.on("leaveEdge", () => { if (container.current) container.current.style.cursor = ""; });
    expose({ graph, sigma: renderer, kind });
    return () => {
      alive = false;
      observer.disconnect();
      renderer.kill();
      sigma.current = null;
      setRenderer(null);
      container.current?.removeAttribute("data-ready");
      expose({ ready: false, sigma: null });
    };
  }, [graph, kind]);

  // redraw only for a real change: a frame of a 100k-edge map is costly without a GPU
  useEffect(() => {
    if (!graph || graph.getAttribute("sizedBy") === metric) return;
    applySizes(graph, metric);
    graph.setAttribute("sizedBy", metric);
    sigma.current?.refresh();
  }, [metric, graph]);

  useEffect(() => {
    expose({ selection, slice: slice?.name ?? null });
    const last = drawn.current;
    if (last.filters === filters && last.selection === selection && last.overlay === overlay && last.slice === slice) return;
    // node sizes differ in the density view: sigma indexes them again on a switch to or from it
    const resized = (last.overlay === "density") !== (overlay === "density");
    drawn.current = { filters, selection, overlay, slice };
    sigma.current?.refresh({ skipIndexation: !resized });
  }, [filters, selection, overlay, slice]);

  // the density grid of the shown network, weighted by the size metric, while the density view is on
  // (the last grid stays until the next one comes: no flicker when the metric changes)
  useEffect(() => {
    if (overlay !== "density" || !kind) { setDensity(null); return; }
    let current = true;
    get<Density>(`api/networks/${encodeURIComponent(kind)}/density`, { metric }).then((d) => {
      if (current) setDensity(d);
    }).catch((exc) => { if (current) setError(exc instanceof ApiFailure ? exc.message : String(exc)); });
    return () => { current = false; };
  }, [overlay, kind, metric, generation]);

  const pickCluster = (cluster: number | null) => setFilters((f) => ({ ...f, cluster }));

  /** Centre the camera on a node, closer in. */
  const flyTo = useCallback((id: string) => {
    const renderer = sigma.current;
    if (!renderer || !graph?.hasNode(id)) return;
    const display = renderer.getNodeDisplayData(id);
    if (display) void renderer.getCamera().animate({ x: display.x, y: display.y, ratio: 0.25 }, { duration: 500 });
  }, [graph]);

  const pickWork = useCallback((id: string) => {
    setSelection({ type: "node", id, missing: !graph?.hasNode(id) });
    flyTo(id);
  }, [flyTo, graph]);

  const chooseKind = (next: string) => {
    setKind(next);
    sessionStorage.setItem("b2g_kind", next);
    setSelection(null);
    setFilters({ cluster: null, yearFrom: null, yearTo: null });
    window.history.replaceState(null, "", `#map?kind=${encodeURIComponent(next)}`);
  };

  /** The next page of weaker edges, added to the drawn graph. */
  const moreEdges = async () => {
    if (!net || net.edges_next === null || !kind) return;
    try {
      const page = await get<Network>(`api/networks/${encodeURIComponent(kind)}`, { edges: EDGE_PAGE, offset: net.edges_next });
      if (graph) addEdges(graph, page.edges);
      setNet({ ...net, edges: [...net.edges, ...page.edges], edges_next: page.edges_next });
      sigma.current?.refresh();
    } catch (exc) {
      setError(exc instanceof ApiFailure ? exc.message : String(exc));
    }
  };

  const reproducibility = (n: Network | null): string | null => {
    const said = n?.metrics.reproducibility;   // the network job's sentence on how stable its clusters are
    return typeof said === "string" && said ? said : null;
  };
  const span = useMemo(() => (graph ? yearSpan(graph) : null), [graph]);
  const clusters = net?.clusters ?? [];
  const shownDensity = density && density.kind === kind ? density : null;
  const shownEdges = net ? `${net.edges.length.toLocaleString()} of ${net.edges_total.toLocaleString()} edges` : "";

  return (
    <section class="mapview" aria-label="Map" data-testid="mapview">
      <div class="toolbar" role="toolbar" aria-label="Map controls">
        <label>network{" "}
          <select value={kind ?? ""} onChange={(e) => chooseKind((e.target as HTMLSelectElement).value)} data-testid="network-select">
            {(networks ?? []).map((n) => (
              <option key={n.kind} value={n.kind}>{n.kind} ({n.nodes ?? 0} nodes)</option>
            ))}
          </select>
        </label>
        <label>size by{" "}
          <select value={metric} onChange={(e) => setMetric((e.target as HTMLSelectElement).value as SizeMetric)} data-testid="size-metric">
            {SIZE_METRICS.map((m) => <option key={m} value={m}>{m}</option>)}
          </select>
        </label>
        <fieldset class="seg" aria-label="Colour">
          <label><input type="radio" name="overlay" checked={overlay === "clusters"} onChange={() => setOverlay("clusters")} data-testid="overlay-clusters" /> clusters</label>
          <label><input type="radio" name="overlay" checked={overlay === "years"} onChange={() => setOverlay("years")} data-testid="overlay-years" /> years</label>
          <label title="VOSviewer's item density: the layout weighted by the size metric"><input type="radio" name="overlay" checked={overlay === "density"} onChange={() => setOverlay("density")} data-testid="overlay-density" /> density</label>
        </fieldset>
        <label>cluster{" "}
          <select value={filters.cluster === null ? "" : String(filters.cluster)} data-testid="cluster-filter"
                  onChange={(e) => { const v = (e.target as HTMLSelectElement).value; pickCluster(v === "" ? null : Number(v)); }}>
            <option value="">all</option>
            {clusters.map((c) => <option key={c.cluster} value={c.cluster}>{c.cluster}: {c.label ?? ""} ({c.size})</option>)}
          </select>
        </label>
        <label>years{" "}
          <input type="number" class="year" placeholder={span ? String(span[0]) : "from"} value={filters.yearFrom ?? ""} data-testid="year-from" aria-label="from year"
                 onChange={(e) => { const v = (e.target as HTMLInputElement).value; setFilters({ ...filters, yearFrom: v === "" ? null : Number(v) }); }} />
          –
          <input type="number" class="year" placeholder={span ? String(span[1]) : "to"} value={filters.yearTo ?? ""} data-testid="year-to" aria-label="to year"
                 onChange={(e) => { const v = (e.target as HTMLInputElement).value; setFilters({ ...filters, yearTo: v === "" ? null : Number(v) }); }} />
        </label>
        {timeline && (
          <label class="timeslider">time{" "}
            <input type="range" min={-1} max={timeline.slices.length - 1} step={1} value={sliceAt} data-testid="time-slider"
                   aria-label="time slice" aria-valuetext={slice ? slice.name : "all years"}
                   onInput={(e) => setSliceAt(Number((e.target as HTMLInputElement).value))} />
            <span data-testid="time-slice">{slice ? `${slice.name} (${slice.members.size} nodes)` : "all years"}</span>
          </label>
        )}
        <button type="button" aria-pressed={tableOpen} onClick={() => setTableOpen(!tableOpen)}
                data-testid="cluster-table-toggle">cluster table</button>
        <SearchBox onPick={pickWork} />
      </div>
      {error && <p class="error" role="alert" data-testid="map-error">{error}</p>}
      {reproducibility(net) && (
        <p class={net?.metrics.clusters_reproducible === false ? "notice" : "muted"} role="status"
           data-testid="reproducibility">{reproducibility(net)}</p>
      )}
      {!placed && <p class="notice" role="status">This network has no layout yet: nodes are on a ring. Run up to <code>networks</code> to place them.</p>}
      <div class="mapbody">
        <div class={overlay === "density" ? "stage dense" : "stage"}>
          {overlay === "density" && <DensityLayer renderer={renderer} density={shownDensity} />}
          <div ref={container} class="sigma" data-testid="map" data-kind={kind ?? ""} data-nodes={graph?.order ?? 0}
               data-edges={graph?.size ?? 0} aria-label={`${kind ?? ""} network map`} role="img" />
          {loading && <div class="loading" role="status">Loading {kind}…</div>}
          {overlay === "clusters" && !slice && <Legend clusters={clusters} picked={filters.cluster} onPick={pickCluster} />}
          <div class="legend" aria-label="Legend">
            {overlay === "years" && span ? (
              <div class="yearlegend"><span>{span[0]}</span><span class="ramp" /><span>{span[1]}</span></div>
            ) : overlay === "density" ? (
              <div class="yearlegend" data-testid="density-legend">
                <span>{densityTitle(shownDensity)}</span>
                <span class="ramp" /><span>high</span></div>
            ) : (
              <span class="muted">{graph ? `${graph.order.toLocaleString()} nodes · ${shownEdges}` : ""}
                {net?.edges_next !== null && net?.edges_next !== undefined && (
                  <> <button type="button" class="small" onClick={moreEdges} data-testid="more-edges">more edges</button></>
                )}</span>
            )}
          </div>
          <div class="zoom">
            <button type="button" aria-label="Zoom in" onClick={() => sigma.current?.getCamera().animatedZoom({ duration: 200 })}>+</button>
            <button type="button" aria-label="Zoom out" onClick={() => sigma.current?.getCamera().animatedUnzoom({ duration: 200 })}>−</button>
            <button type="button" aria-label="Reset view" onClick={() => sigma.current?.getCamera().animatedReset({ duration: 200 })}>⟲</button>
          </div>
        </div>
        <Details kind={kind} graph={graph} clusters={clusters} selection={selection}
                 onSelect={(s) => { setSelection(s); if (s?.type === "node") flyTo(s.id); }} />
      </div>
      {tableOpen && <ClusterTable clusters={clusters} picked={filters.cluster} onPick={pickCluster} onWork={pickWork} />}
    </section>
  );
}
