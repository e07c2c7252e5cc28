// What a scenario module of bench/scenarios/ exports as `scenario`: the bench runs it, the JSON keeps its result under
// `key`, and the report prints its section. Adding one is adding its file: run.ts finds every module there.
import { readdirSync } from "node:fs";
import type { BenchContext, Skipped } from "./context.js";

export interface Scenario<T> {
  /** Its place in the run and in the report (the section's number). */
  order: number;
  /** Its field in the JSON's `scenarios`. */
  key: string;
  /** Its name for `--only`. */
  flag: string;
  /** The report section's heading. */
  title: string;
  run(ctx: BenchContext): Promise<T | Skipped>;
  /** The report section's body, as markdown lines. */
  section(result: T): string[];
  /** An SVG chart written beside the report, if the scenario draws one. */
  chart?(result: T, stamp: string): string;
}

export function isScenario(value: unknown): value is Scenario<unknown> {
  if (typeof value !== "object" || value === null) return false;
  const s = value as Record<string, unknown>;
  return (
    typeof s.order === "number" &&
    typeof s.key === "string" &&
    typeof s.flag === "string" &&
    typeof s.title === "string" &&
    typeof s.run === "function" &&
    typeof s.section === "function"
  );
}

/** Every module of bench/scenarios/, in their order; two sharing a key, a flag or an order is an error. */
export async function loadScenarios(): Promise<Array<Scenario<unknown>>> {
  const dir = new URL("./scenarios/", import.meta.url);
  const files = readdirSync(dir)
    .filter((file) => file.endsWith(".js"))
    .sort();
  const found: Array<Scenario<unknown>> = [];
  for (const file of files) {
    const module = (await import(new URL(file, dir).href)) as { scenario?: unknown };
    if (!isScenario(module.scenario)) throw new Error(`bench/scenarios/${file} exports no scenario`);
    found.push(module.scenario);
  }
  for (const field of ["key", "flag", "order"] as const) {
    const seen = new Set(found.map((s) => s[field]));
    if (seen.size !== found.length) throw new Error(`two bench scenarios share a ${field}`);
  }
  return found.sort((a, b) => a.order - b.order);
}
