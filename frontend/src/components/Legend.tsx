/** The map's cluster legend: each cluster's colour, label and size, as the network phase recorded them.
 *  An entry is also the cluster filter: a click picks its cluster, a second click (or "all") clears it. */
import type { Cluster } from "../api";
import { clusterColour } from "../graph";

export function Legend({ clusters, picked, onPick }: {
  clusters: Cluster[]; picked: number | null; onPick: (cluster: number | null) => void;
}) {
  if (!clusters.length) return null;
  return (
    <nav class="clusterlegend" aria-label="Cluster legend" data-testid="legend">
      <button type="button" class="entry" aria-pressed={picked === null} data-testid="legend-all"
              onClick={() => onPick(null)}>all clusters</button>
      <ul>
        {clusters.map((c) => {
          const colour = c.colour || clusterColour(c.cluster);
          return (
            <li key={c.cluster}>
              <button type="button" class="entry" aria-pressed={picked === c.cluster} title={c.label ?? ""}
                      data-testid={`legend-item-${c.cluster}`} data-cluster={c.cluster} data-colour={colour}
                      onClick={() => onPick(picked === c.cluster ? null : c.cluster)}>
                <span class="swatch" style={{ background: colour }} />
                <span class="num">{c.cluster}</span>
                <span class="name" data-testid="legend-label">{c.label ?? `cluster ${c.cluster}`}</span>
                <span class="muted" data-testid="legend-size">{c.size}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
