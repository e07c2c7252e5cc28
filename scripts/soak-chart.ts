// An SVG of a soak run: host RSS and echo-prompt p99 over time, one panel each. Hand-written SVG: an output file.
import type { SoakSample } from "../test/support/soak.js";

const W = 760;
const PANEL = 200;
const M = { left: 70, right: 20, top: 40, gap: 60 };

function panel(
  samples: readonly SoakSample[],
  pick: (s: SoakSample) => number | null,
  top: number,
  label: string,
  color: string,
): string {
  const points = samples
    .map((s) => ({ x: s.atMs / 1000, y: pick(s) }))
    .filter((p): p is { x: number; y: number } => p.y !== null);
  const xMax = Math.max(1, ...points.map((p) => p.x));
  const yMax = Math.max(1, ...points.map((p) => p.y)) * 1.1;
  const plotW = W - M.left - M.right;
  const x = (v: number) => M.left + (v / xMax) * plotW;
  const y = (v: number) => top + PANEL - (v / yMax) * PANEL;
  const path = points.map((p, i) => `${i === 0 ? "M" : "L"}${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join(" ");
  const ticks = [0, 0.25, 0.5, 0.75, 1].map(
    (f) =>
      `<text x="${M.left - 8}" y="${y(yMax * f) + 4}" text-anchor="end" font-size="11">${(yMax * f).toFixed(yMax < 10 ? 1 : 0)}</text>`,
  );
  return [
    `<text x="${M.left}" y="${top - 10}" font-size="13" font-weight="bold">${label}</text>`,
    `<rect x="${M.left}" y="${top}" width="${plotW}" height="${PANEL}" fill="none" stroke="#999"/>`,
    ...ticks,
    `<text x="${M.left + plotW}" y="${top + PANEL + 16}" text-anchor="end" font-size="11">${xMax.toFixed(0)} s</text>`,
    `<path d="${path}" fill="none" stroke="${color}" stroke-width="1.5"/>`,
  ].join("\n");
}

export function soakChart(samples: readonly SoakSample[], title: string): string {
  const height = M.top + 2 * PANEL + M.gap + 40;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" font-family="sans-serif">`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="15">${title}</text>`,
    panel(samples, (s) => s.rssMb, M.top + 10, "host RSS (MB)", "#2471a3"),
    panel(samples, (s) => s.p99Ms, M.top + 10 + PANEL + M.gap, "echo prompt p99 per second (ms)", "#c0392b"),
    "</svg>",
  ].join("\n");
}
