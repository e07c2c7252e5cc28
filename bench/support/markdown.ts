// What a scenario's report section is written with: figures as `median (min–max)`, ratios, tables.
import type { Figure } from "./stats.js";

/** `median (min–max)` over the runs, or the lone value of a single run. */
export function fmt(f: Figure, digits = decimals(f.median)): string {
  if (!Number.isFinite(f.median)) return "n/a";
  return spread(f, (v) => v.toFixed(digits));
}

/** A figure of ratios, as `fmt` gives figures: `median× (min×–max×)`. */
export function xFigure(f: Figure): string {
  return spread(f, x);
}

function spread(f: Figure, show: (value: number) => string): string {
  return f.runs.length > 1 && f.min !== f.max ? `${show(f.median)} (${show(f.min)}–${show(f.max)})` : show(f.median);
}

function decimals(value: number): number {
  const abs = Math.abs(value);
  return abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function scaled(f: Figure, k: number): Figure {
  return { median: f.median * k, min: f.min * k, max: f.max * k, runs: f.runs.map((v) => v * k) };
}

export function x(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : "n/a";
}

export function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");
}
