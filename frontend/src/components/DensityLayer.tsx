/** The density view's image: the server's item density grid (one canvas pixel per cell, viridis) laid
 *  under the sigma graph, its corners placed where sigma draws the grid's extent after every render,
 *  so it follows the camera. */
import { useEffect, useRef } from "preact/hooks";
import type Sigma from "sigma";
import type { Density } from "../api";
import { viridis } from "../graph";

/** The grid into the canvas; `upward`: larger y is drawn higher, so the grid's top row (largest y) comes first. */
function paint(canvas: HTMLCanvasElement, density: Density, upward: boolean): void {
  const n = density.size;
  canvas.width = n;
  canvas.height = n;
  const context = canvas.getContext("2d");
  if (!context) return;
  const image = context.createImageData(n, n);
  for (let i = 0; i < n; i++) {
    const row = density.values[upward ? n - 1 - i : i];
    for (let c = 0; c < n; c++) {
      const [r, g, b] = viridis(row[c]);
      image.data.set([r, g, b, 255], (i * n + c) * 4);
    }
  }
  context.putImageData(image, 0, 0);
}

export function DensityLayer({ renderer, density }: { renderer: Sigma<any, any, any> | null; density: Density | null }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const el = canvas.current;
    if (!el || !renderer || !density) return;
    let upward: boolean | null = null;
    const place = () => {
      const [lo, hi] = density.extent;
      const a = renderer.graphToViewport({ x: lo, y: lo });
      const b = renderer.graphToViewport({ x: hi, y: hi });
      Object.assign(el.style, { left: `${Math.min(a.x, b.x)}px`, top: `${Math.min(a.y, b.y)}px`,
                                width: `${Math.abs(b.x - a.x)}px`, height: `${Math.abs(b.y - a.y)}px` });
      const up = b.y < a.y;
      if (up !== upward) { upward = up; paint(el, density, up); }
      el.dataset.placed = "true";   // for tests: drawn and placed at least once
    };
    place();
    renderer.on("afterRender", place);
    return () => { renderer.off("afterRender", place); delete el.dataset.placed; };
  }, [renderer, density]);
  if (!density) return null;
  return <canvas ref={canvas} class="densitylayer" data-testid="density-layer" data-metric={density.metric}
                 data-size={density.size} aria-hidden="true" />;
}
