/** The PRISMA flow of results/corpus/prisma.json as boxes and arrows: identified (seeds and each chaining
 *  round), duplicates removed, screened, excluded (by the filters, by people), included. */

export interface Prisma {
  identified: { seeds: number; rounds: { round: number; admitted: number }[]; total: number };
  duplicates_removed: number;
  screened: number;
  excluded_by_filter: Record<string, number>;
  excluded_by_people: number;
  reinstated_by_people: number;
  included: number;
}

const W = 220;
const H = 54;
const GAP = 26;

function Box({ x, y, title, lines, testid }: { x: number; y: number; title: string; lines: string[]; testid?: string }) {
  const h = H + Math.max(0, lines.length - 1) * 14;
  return (
    <g data-testid={testid}>
      <rect x={x} y={y} width={W} height={h} rx={6} class="pbox" />
      <text x={x + 10} y={y + 20} class="ptitle">{title}</text>
      {lines.map((line, i) => <text key={i} x={x + 10} y={y + 38 + i * 14} class="pline">{line}</text>)}
    </g>
  );
}

function Arrow({ x1, y1, x2, y2 }: { x1: number; y1: number; x2: number; y2: number }) {
  return <line x1={x1} y1={y1} x2={x2} y2={y2} class="parrow" marker-end="url(#arrowhead)" />;
}

export function PrismaDiagram({ prisma }: { prisma: Prisma }) {
  const filters = Object.entries(prisma.excluded_by_filter ?? {});
  const filtered = filters.reduce((sum, [, n]) => sum + n, 0);
  const identified = [`seeds: ${prisma.identified.seeds}`,
    ...prisma.identified.rounds.map((r) => `chaining round ${r.round}: ${r.admitted}`)];
  const excluded = [...filters.map(([reason, n]) => `${reason}: ${n}`), `by people: ${prisma.excluded_by_people}`];
  const rows = [
    { title: `Identified (${prisma.identified.total})`, lines: identified },
    { title: `Screened (${prisma.screened})`, lines: [`duplicates removed: ${prisma.duplicates_removed}`] },
    { title: `Included (${prisma.included})`, lines: [`reinstated by people: ${prisma.reinstated_by_people}`] },
  ];
  const heights = rows.map((r) => H + Math.max(0, r.lines.length - 1) * 14);
  const ys = heights.reduce<number[]>((acc, _h, i) => [...acc, i === 0 ? 4 : acc[i - 1] + heights[i - 1] + GAP], []);
  const exH = H + Math.max(0, excluded.length - 1) * 14;
  const height = Math.max(ys[2] + heights[2], ys[1] + exH) + 8;
  const side = W + 60;
  return (
    <svg viewBox={`0 0 ${side + W + 4} ${height}`} role="img" class="prisma-svg" data-testid="prisma"
         aria-label={`PRISMA flow: ${prisma.identified.total} identified, ${prisma.screened} screened, `
           + `${filtered + prisma.excluded_by_people} excluded, ${prisma.included} included`}>
      <defs>
        <marker id="arrowhead" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">
          <path d="M0,0 L8,4 L0,8 z" class="parrowhead" />
        </marker>
      </defs>
      {rows.map((r, i) => <Box key={r.title} x={4} y={ys[i]} title={r.title} lines={r.lines} />)}
      <Arrow x1={4 + W / 2} y1={ys[0] + heights[0]} x2={4 + W / 2} y2={ys[1] - 2} />
      <Arrow x1={4 + W / 2} y1={ys[1] + heights[1]} x2={4 + W / 2} y2={ys[2] - 2} />
      <Box x={side} y={ys[1]} title={`Excluded (${filtered + prisma.excluded_by_people})`} lines={excluded} testid="prisma-excluded" />
      <Arrow x1={4 + W} y1={ys[1] + H / 2} x2={side - 2} y2={ys[1] + H / 2} />
    </svg>
  );
}
