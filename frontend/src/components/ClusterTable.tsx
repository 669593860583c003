/** The cluster table of the shown network (metrics.json's `clusters`): per cluster its size, years,
 *  weight inside and leaving it, silhouette, label terms with their scores, and the works to read first
 *  (most central, most cited). A cluster's number picks it on the map; a work's label selects it. */
import type { Cluster, ClusterWork } from "../api";
import { clusterColour, plain, shortLabel } from "../graph";

/** A number as the table shows it: `digits` decimals, integers as they are, "–" for none. */
function num(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  return Number.isInteger(value) ? value.toLocaleString() : value.toFixed(digits);
}

function Works({ works, field, onWork }: {
  works: ClusterWork[] | undefined; field: "central" | "cited"; onWork: (id: string) => void;
}) {
  if (!works?.length) return <span class="muted">–</span>;
  return (
    <ol class="works">
      {works.map((w) => (
        <li key={w.node_id} data-testid={`cluster-${field}`} data-id={w.node_id}>
          <button type="button" class="linkish" title={plain(w.label ?? w.node_id)} onClick={() => onWork(w.node_id)}>
            {shortLabel(w.label ?? w.node_id)}</button>
          {field === "cited" && w.citations !== null && w.citations !== undefined
            ? <span class="muted"> {w.citations.toLocaleString()}×</span> : null}
        </li>
      ))}
    </ol>
  );
}

export function ClusterTable({ clusters, picked, onPick, onWork }: {
  clusters: Cluster[]; picked: number | null; onPick: (cluster: number | null) => void; onWork: (id: string) => void;
}) {
  return (
    <section class="clustertable" aria-label="Cluster table" data-testid="cluster-table" data-count={clusters.length}>
      {!clusters.length ? <p class="muted">No cluster of two or more nodes.</p> : (
        <table>
          <thead>
            <tr>
              <th scope="col">cluster</th><th scope="col">size</th><th scope="col">label terms (score)</th>
              <th scope="col" title="mean / median publication year">years</th>
              <th scope="col" title="total weight of the edges inside the cluster / leaving it">weight in / out</th>
              <th scope="col" title="mean silhouette of the members (docs/networks.md)">silhouette</th>
              <th scope="col">most central</th><th scope="col">most cited</th>
            </tr>
          </thead>
          <tbody>
            {clusters.map((c) => (
              <tr key={c.cluster} data-testid="cluster-row" data-cluster={c.cluster} class={picked === c.cluster ? "picked" : ""}>
                <td>
                  <button type="button" class="small" aria-pressed={picked === c.cluster} title="show only this cluster"
                          onClick={() => onPick(picked === c.cluster ? null : c.cluster)}>
                    <span class="swatch" style={{ background: c.colour || clusterColour(c.cluster) }} /> {c.cluster}
                  </button>
                </td>
                <td data-field="size">{c.size}</td>
                <td data-field="terms">
                  <div class="name">{c.label ?? "–"}</div>
                  {(c.terms ?? []).map((t) => (
                    <span key={t.term} class="term" data-testid="cluster-term" data-score={t.score ?? ""}
                          title={t.works !== null && t.works !== undefined ? `${t.works} works` : ""}>
                      {t.term}{t.score !== null && t.score !== undefined ? ` (${num(t.score, 1)})` : ""}</span>
                  ))}
                </td>
                <td data-field="years">{num(c.mean_year, 1)} / {num(c.median_year, 1)}</td>
                <td data-field="weight">{num(c.internal_weight)} / {num(c.external_weight)}</td>
                <td data-field="silhouette">{num(c.silhouette)}</td>
                <td data-field="central"><Works works={c.central} field="central" onWork={onWork} /></td>
                <td data-field="cited"><Works works={c.cited} field="cited" onWork={onWork} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
