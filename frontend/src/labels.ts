/** Map labels that never pile up: sigma's label grid picks candidates (one or a few per cell, larger
 *  nodes first), and this drawer skips any label whose box would overlap one already drawn in the same
 *  frame. Labels get a white halo so that they stay readable over edges. */
import type Sigma from "sigma";
import type { NodeLabelDrawingFunction } from "sigma/rendering";

const PAD = 2;

interface Box { x0: number; y0: number; x1: number; y1: number }

export function labelDrawer(): { draw: NodeLabelDrawingFunction; attach: (renderer: Sigma<any, any, any>) => void } {
  let drawn: Box[] = [];
  const overlaps = (b: Box) => drawn.some((d) => b.x0 < d.x1 && b.x1 > d.x0 && b.y0 < d.y1 && b.y1 > d.y0);

  const draw: NodeLabelDrawingFunction = (context, data, settings) => {
    if (!data.label) return;
    const size = settings.labelSize;
    context.font = `${settings.labelWeight} ${size}px ${settings.labelFont}`;
    const width = context.measureText(data.label).width;
    const x = data.x + data.size + 3;
    const y = data.y + size / 3;
    const box = { x0: x - PAD, y0: y - size - PAD, x1: x + width + PAD, y1: y + PAD + size / 3 };
    if (!data.forceLabel && overlaps(box)) return;
    drawn.push(box);
    context.lineWidth = 3;
    context.strokeStyle = "rgba(255,255,255,0.9)";
    context.lineJoin = "round";
    context.strokeText(data.label, x, y);
    context.fillStyle = "#1d2330";
    context.fillText(data.label, x, y);
  };

  /** A new frame starts with no label drawn. */
  const attach = (renderer: Sigma<any, any, any>) => renderer.on("beforeRender", () => { drawn = []; });
  return { draw, attach };
}
