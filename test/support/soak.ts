// The soak: sessions created and closed continuously on one host, each with mixed prompts (echo, bash, big output,
// cancel, a worker crash), `concurrency` at a time. Samples the host every second: RSS, open fds, threads, child
// processes, and the p99 of echo prompts. Resources are compared at rest: after a warm-up, and at the end.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HostClient } from "../../src/client/index.js";
import { seeded, type Random } from "./prng.js";
import { descendants, threadCount } from "./proc.js";
import { bash, script } from "./tools.js";

export interface SoakOptions {
  seed: number;
  sessions: number;
  prompts: number;
  concurrency: number;
  /** Sessions run (and discarded from the comparison) before the baseline. */
  warmupSessions: number;
  /** Width of the first and last latency windows compared (ms of the run). */
  windowMs: number;
  log?: (line: string) => void;
}

export interface Resources {
  rssMb: number;
  fds: number;
  threads: number;
  children: number;
}

export interface SoakSample extends Resources {
  atMs: number;
  p99Ms: number | null;
}

export interface SoakReport {
  seed: number;
  sessions: number;
  prompts: number;
  failures: string[];
  baseline: Resources;
  end: Resources;
  p99FirstMs: number;
  p99LastMs: number;
  samples: SoakSample[];
  durationMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function resourcesOf(pid: number): Resources {
  const status = readFileSyncSafe(`/proc/${pid}/status`);
  const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  return {
    rssMb: kb / 1024,
    fds: readdirSync(`/proc/${pid}/fd`).length,
    threads: threadCount(pid),
    children: descendants(pid).length,
  };
}

function readFileSyncSafe(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

export function p99(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
}

/**
 * V8 gives back the pages of ended isolates and of its own collections on a timer, its memory reducer's (8 s after
 * the last full collection): on Node 24 the host's RSS falls by 30-45 MB 6-8 s after it is at rest (Node 20: 3-4 MB).
 * Readings before that measure when the timer fired, not what the host keeps.
 */
const REST_READINGS_MS = 12_000;
const REST_READING_EVERY_MS = 500;

/**
 * At rest: no prompt running, the host past its idle collection (it says so in `_host/stats`), every worker settled;
 * readings over REST_READINGS_MS, the smallest kept.
 */
async function atRest(client: HostClient, pid: number): Promise<Resources> {
  for (let polls = 0; !(await client.stats()).memory.atRest; polls++) {
    if (polls === 600)
      throw new Error("the host never reported itself at rest (_host/stats memory.atRest) after its last prompt");
    await sleep(100);
  }
  const readings: Resources[] = [];
  for (let waited = 0; waited <= REST_READINGS_MS; waited += REST_READING_EVERY_MS) {
    readings.push(resourcesOf(pid));
    await sleep(REST_READING_EVERY_MS);
  }
  const min = (key: keyof Resources) => Math.min(...readings.map((r) => r[key]));
  return { rssMb: min("rssMb"), fds: min("fds"), threads: min("threads"), children: min("children") };
}

type Outcome = "ok" | "expected-failure";

async function onePrompt(
  client: HostClient,
  sessionId: string,
  random: Random,
  n: number,
  echoLatencies: Array<{ at: number; ms: number }>,
  started: number,
): Promise<Outcome> {
  const kind = random.int(0, 9);
  if (kind <= 3) {
    const t0 = performance.now();
    const result = await client.prompt(sessionId, `soak ${n}`);
    echoLatencies.push({ at: t0 - started, ms: performance.now() - t0 });
    if (result.text !== `You said: soak ${n}`) throw new Error(`echo ${n} answered ${JSON.stringify(result.text)}`);
    return "ok";
  }
  if (kind <= 5) {
    const result = await client.prompt(sessionId, script(bash(`echo bash ${n}; ls`)));
    if (!JSON.stringify(result.toolCalls[0]?.rawOutput).includes(`bash ${n}`))
      throw new Error(`bash ${n} lost its output`);
    return "ok";
  }
  if (kind === 6) {
    await client.prompt(sessionId, script(bash(`head -c ${random.int(100_000, 400_000)} /dev/urandom | base64`)));
    return "ok";
  }
  if (kind <= 8) {
    const abort = new AbortController();
    const turn = client.prompt(sessionId, script(bash("sleep 30")), { signal: abort.signal });
    setTimeout(() => abort.abort(), random.int(20, 200));
    const result = await turn;
    if (result.stopReason !== "cancelled" && result.stopReason !== "end_turn")
      throw new Error(`cancel ${n} ended ${result.stopReason}`);
    return "ok";
  }
  const crashed = await client.prompt(sessionId, script({ crash: `soak ${n}` })).then(
    () => false,
    () => true,
  );
  if (!crashed) throw new Error(`crash ${n} did not fail its prompt`);
  return "expected-failure";
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const { seed, sessions, prompts, concurrency, warmupSessions, windowMs, log = () => {} } = options;
  const random = seeded(seed);
  const root = mkdtempSync(join(tmpdir(), "ash-soak-"));
  const client = await HostClient.spawn({
    hostArgs: [
      "--state-dir",
      join(root, "state"),
      "--default-mode",
      "auto",
      "--allow-fault-injection",
      "--warm-workers",
      "2",
      "--max-warm-workers",
      "2",
      "--log-level",
      "warn",
    ],
    permission: "allow",
  });
  const pid = client.child!.pid!;
  const failures: string[] = [];
  const echo: Array<{ at: number; ms: number }> = [];
  const samples: SoakSample[] = [];
  let n = 0;
  let next = 0;
  const started = performance.now();
  const runSessions = async (count: number) => {
    const limit = next + count;
    const lane = async () => {
      while (next < limit) {
        next++;
        const cwd = mkdtempSync(join(root, "ws-"));
        try {
          const { sessionId } = await client.newSession(cwd);
          for (let p = 0; p < prompts; p++) await onePrompt(client, sessionId, random, ++n, echo, started);
          // Half are closed (they stay in the state dir), half deleted.
          if (random.next() < 0.5) await client.close(sessionId);
          else await client.delete(sessionId);
        } catch (error) {
          failures.push(`session ${next}: ${(error as Error).message}`);
        } finally {
          rmSync(cwd, { recursive: true, force: true });
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
  };
  const sampler = setInterval(() => {
    const at = performance.now() - started;
    const recent = echo.filter((e) => e.at >= at - 1_000).map((e) => e.ms);
    samples.push({ atMs: at, ...resourcesOf(pid), p99Ms: recent.length > 0 ? p99(recent) : null });
  }, 1_000);
  try {
    await runSessions(warmupSessions);
    const baseline = await atRest(client, pid);
    log(`baseline after ${warmupSessions} sessions: ${JSON.stringify(baseline)}`);
    const mainStart = performance.now() - started;
    const progress = setInterval(
      () => log(`sessions ${next}/${sessions}, prompts ${n}, ${JSON.stringify(resourcesOf(pid))}`),
      10_000,
    );
    await runSessions(sessions - warmupSessions).finally(() => clearInterval(progress));
    const mainEnd = performance.now() - started;
    const end = await atRest(client, pid);
    const first = echo.filter((e) => e.at >= mainStart && e.at < mainStart + windowMs).map((e) => e.ms);
    const last = echo.filter((e) => e.at > mainEnd - windowMs).map((e) => e.ms);
    return {
      seed,
      sessions,
      prompts,
      failures,
      baseline,
      end,
      p99FirstMs: p99(first),
      p99LastMs: p99(last),
      samples,
      durationMs: mainEnd,
    };
  } finally {
    clearInterval(sampler);
    await client.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The resources that did not come back within `slack` of the baseline (at least one unit of slack for counts). */
export function leaks(report: SoakReport, slack = 0.1): string[] {
  const found: string[] = [];
  for (const key of ["rssMb", "fds", "threads", "children"] as const) {
    const allowed =
      key === "rssMb"
        ? report.baseline[key] * (1 + slack)
        : Math.max(report.baseline[key] + 1, Math.floor(report.baseline[key] * (1 + slack)));
    if (report.end[key] > allowed)
      found.push(
        `${key}: ${report.end[key].toFixed(1)} at the end, ${report.baseline[key].toFixed(1)} after warm-up (allowed ${allowed.toFixed(1)})`,
      );
  }
  return found;
}
