// What `run` prints: a table for people, or one JSON document for machines.
import type { SessionRun } from "./drive.js";

export interface RunReport {
  host: { args: string[]; pid: number | null; readyMs: number };
  sessions: Array<SessionRun & { latencyMs: number; firstLine: string }>;
  summary: {
    sessions: number;
    turns: number;
    /** Sessions whose last turn ended with end_turn. */
    endTurn: number;
    /** Sessions that failed (session/new or a prompt answered an error). */
    failed: number;
    wallMs: number;
    promptsPerSecond: number;
    promptLatencyMs: { p50: number; p95: number; max: number };
  };
}

export function buildReport(runs: SessionRun[], host: RunReport["host"], turns: number, wallMs: number): RunReport {
  const latencies = runs.flatMap((run) => run.promptMs).sort((a, b) => a - b);
  const prompts = latencies.length;
  return {
    host,
    sessions: runs.map((run) => ({
      ...run,
      latencyMs: run.promptMs.reduce((sum, ms) => sum + ms, 0),
      firstLine: firstLine(run.error ?? run.answer),
    })),
    summary: {
      sessions: runs.length,
      turns,
      endTurn: runs.filter((run) => run.stopReason === "end_turn").length,
      failed: runs.filter((run) => run.stopReason === "error").length,
      wallMs,
      promptsPerSecond: wallMs > 0 ? (prompts * 1000) / wallMs : 0,
      promptLatencyMs: { p50: rank(latencies, 0.5), p95: rank(latencies, 0.95), max: latencies.at(-1) ?? 0 },
    },
  };
}

/** The table: one row per session, then a line of totals. */
export function formatTable(report: RunReport, columns: number): string {
  const { summary } = report;
  const header = [
    "#",
    "session",
    "stop",
    "new ms",
    summary.turns > 1 ? `${summary.turns} prompts ms` : "prompt ms",
    "answer",
  ];
  const rows = report.sessions.map((s) => [
    String(s.index),
    s.sessionId ? s.sessionId.slice(0, 8) : "-",
    s.stopReason,
    s.newSessionMs === null ? "-" : ms(s.newSessionMs),
    s.promptMs.length === 0 ? "-" : ms(s.latencyMs),
    s.firstLine,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const numeric = new Set([0, 3, 4]);
  const line = (cells: string[]) => {
    const fixed = cells
      .slice(0, -1)
      .map((cell, i) => (numeric.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)));
    const used = fixed.reduce((n, cell) => n + cell.length + 2, 0);
    return [...fixed, clip(cells.at(-1)!, Math.max(20, columns - used))].join("  ").trimEnd();
  };
  const lat = summary.promptLatencyMs;
  return [
    `acp-session-host run: ${summary.sessions} session${summary.sessions === 1 ? "" : "s"} × ${summary.turns} prompt${summary.turns === 1 ? "" : "s"}, host ready in ${ms(report.host.readyMs)} ms`,
    "",
    line(header),
    ...rows.map(line),
    "",
    `${summary.endTurn}/${summary.sessions} end_turn${summary.failed ? `, ${summary.failed} failed` : ""} · wall ${(summary.wallMs / 1000).toFixed(2)} s · ` +
      (report.sessions.some((s) => s.promptMs.length > 0)
        ? `prompt latency p50 ${ms(lat.p50)} ms, p95 ${ms(lat.p95)} ms, max ${ms(lat.max)} ms · ${summary.promptsPerSecond.toFixed(1)} prompts/s`
        : "no prompt answered"),
  ].join("\n");
}

function rank(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function firstLine(text: string): string {
  return text.split("\n", 1)[0]!.trim();
}

function clip(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

function ms(value: number): string {
  return value < 10 ? value.toFixed(1) : String(Math.round(value));
}
