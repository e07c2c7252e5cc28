// An SVG chart of prompt latency against session count (log–log): host and floor, p50 and p99, with the spread of
// the runs as a vertical bar at each point. Hand-written SVG: it is an output file, not a UI.
import type { Figure } from "./stats.js";

const W = 720;
const H = 440;
const M = { left: 70, right: 170, top: 50, bottom: 60 };

interface Series {
  label: string;
  color: string;
  dashed: boolean;
  points: Array<{ x: number; y: Figure }>;
}

/** What the chart reads of the throughput scenario's result: p50 and p99 of host and floor at each session count. */
export interface LatencyRows {
  rows: ReadonlyArray<{
    sessions: number;
    host: { latencyMs: { p50: Figure; p99: Figure } };
    floor: { latencyMs: { p50: Figure; p99: Figure } };
  }>;
}

export function latencyChart(result: LatencyRows, title: string): string {
  const series: Series[] = [
    {
      label: "host p99",
      color: "#c0392b",
      dashed: true,
      points: result.rows.map((r) => ({ x: r.sessions, y: r.host.latencyMs.p99 })),
    },
    {
      label: "host p50",
      color: "#c0392b",
      dashed: false,
      points: result.rows.map((r) => ({ x: r.sessions, y: r.host.latencyMs.p50 })),
    },
    {
      label: "floor p99",
      color: "#2471a3",
      dashed: true,
      points: result.rows.map((r) => ({ x: r.sessions, y: r.floor.latencyMs.p99 })),
    },
    {
      label: "floor p50",
      color: "#2471a3",
      dashed: false,
      points: result.rows.map((r) => ({ x: r.sessions, y: r.floor.latencyMs.p50 })),
    },
  ];
  const xs = result.rows.map((r) => r.sessions);
  const ys = series
    .flatMap((s) => s.points.flatMap((p) => [p.y.min, p.y.max, p.y.median]))
    .filter((v) => Number.isFinite(v) && v > 0);
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  const yMin = 10 ** Math.floor(Math.log10(Math.min(...ys)));
  const yMax = 10 ** Math.ceil(Math.log10(Math.max(...ys)));
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const px = (v: number) =>
    M.left +
    (xMax === xMin ? plotW / 2 : ((Math.log10(v) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))) * plotW);
  const py = (v: number) =>
    M.top + plotH - ((Math.log10(v) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * plotH;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="${M.left}" y="24" font-size="15" font-weight="bold">${esc(title)}</text>`);
  // y grid: every power of ten, with 2 and 5 between
  for (let decade = yMin; decade < yMax * 1.0001; decade *= 10) {
    for (const step of [1, 2, 5]) {
      const v = decade * step;
      if (v > yMax * 1.0001) break;
      const y = py(v);
      out.push(
        `<line x1="${M.left}" x2="${M.left + plotW}" y1="${y}" y2="${y}" stroke="${step === 1 ? "#ccc" : "#eee"}"/>`,
      );
      out.push(`<text x="${M.left - 8}" y="${y + 4}" text-anchor="end" fill="#444">${label(v)}</text>`);
    }
  }
  for (const v of xs) {
    const x = px(v);
    out.push(`<line x1="${x}" x2="${x}" y1="${M.top}" y2="${M.top + plotH}" stroke="#eee"/>`);
    out.push(`<text x="${x}" y="${M.top + plotH + 18}" text-anchor="middle" fill="#444">${v}</text>`);
  }
  out.push(`<rect x="${M.left}" y="${M.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`);
  out.push(`<text x="${M.left + plotW / 2}" y="${H - 18}" text-anchor="middle">concurrent sessions (log)</text>`);
  out.push(
    `<text transform="translate(18 ${M.top + plotH / 2}) rotate(-90)" text-anchor="middle">prompt latency, ms (log)</text>`,
  );

  series.forEach((s, i) => {
    const pts = s.points.filter((p) => Number.isFinite(p.y.median) && p.y.median > 0);
    const dash = s.dashed ? ` stroke-dasharray="6 4"` : "";
    out.push(
      `<polyline fill="none" stroke="${s.color}" stroke-width="2"${dash} points="${pts.map((p) => `${px(p.x)},${py(p.y.median)}`).join(" ")}"/>`,
    );
    for (const p of pts) {
      if (p.y.min > 0 && p.y.max > p.y.min)
        out.push(
          `<line x1="${px(p.x)}" x2="${px(p.x)}" y1="${py(p.y.min)}" y2="${py(p.y.max)}" stroke="${s.color}" stroke-width="1.5"/>`,
        );
      out.push(`<circle cx="${px(p.x)}" cy="${py(p.y.median)}" r="3.5" fill="${s.color}"/>`);
    }
    const ly = M.top + 10 + i * 22;
    const lx = M.left + plotW + 16;
    out.push(`<line x1="${lx}" x2="${lx + 30}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2"${dash}/>`);
    out.push(`<text x="${lx + 38}" y="${ly + 4}">${esc(s.label)}</text>`);
  });
  out.push(
    `<text x="${M.left + plotW + 16}" y="${M.top + 10 + series.length * 22 + 8}" fill="#666" font-size="11">bars: min–max of runs</text>`,
  );
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

function label(v: number): string {
  return v >= 1 ? String(Math.round(v)) : String(Number(v.toPrecision(1)));
}

function esc(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
