// Scenario 19: several clients on one live session. One busy session's turns (a command's output and two messages
// each) with nobody attached, with an observer that never reads, and with 100 observers reading: the turn's p50/p99
// and the host's RSS against nobody, and the host's CPU per update per observer (its /proc utime+stime, less the
// run with nobody, over updates × observers). Then two controllers answering every permission at once (exactly one
// answer takes effect each time), a controller's connection cut at random moments of its turns (reconnected: nothing
// lost or repeated), and, on a throwaway PostgreSQL fleet of two hosts, how long after the owner's client an observer
// at the other host sees each update.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { HostClient } from "../../src/client/index.js";
import { startHosts } from "../../test/support/fleet.js";
import { TestPostgres } from "../../test/support/postgres.js";
import { openStalledClient } from "../../test/support/stalled-client.js";
import { startCutProxy } from "../../test/support/cut-proxy.js";
import { seeded } from "../../test/support/prng.js";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { startListeningHost, type ListeningHost } from "../support/remote-host.js";
import { figure, ratio, summarize, type Figure } from "../support/stats.js";
import { fmt, plural, table, x } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

const OBSERVERS = fileURLToPath(new URL("../processes/observers.js", import.meta.url));

type Audience = "none" | "stalled" | "observers";
const AUDIENCES: Audience[] = ["none", "stalled", "observers"];

export interface SharedSessionsResult {
  runs: number;
  turns: number;
  observers: number;
  turnP50: Record<Audience, Figure>;
  turnP99: Record<Audience, Figure>;
  /** p99 with each audience ÷ p99 with none. */
  p99Ratio: { stalled: number; observers: number };
  /** Host RSS growth during the run, MiB. */
  rssGrowthMiB: Record<Audience, Figure>;
  /** Host CPU µs per update per observer (the 100-observer run less the run with none). */
  cpuPerUpdatePerObserverUs: Figure;
  permissions: { rounds: number; oneOutcomeEach: boolean; allowed: number; refused: number };
  reconnect: { cuts: number; cutMidTurn: number; answered: number; lost: number; repeated: number };
  fleet: { updates: number; p50: number; p99: number } | { skipped: string };
}

const script = (...steps: unknown[]) => `/script ${JSON.stringify(steps)}`;
const bash = (command: string) => ({ tool: "bash", input: { command } });
const BUSY_TURN = script({ say: "starting" }, bash("seq 1 400"), { say: "done: {{result}}" });
const eventId = (update: SessionUpdate) => update._meta?.eventId as string;

/** Resolves once the predicate holds (checked every 5 ms); the bench waits for events, not for time. */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 5));
}

function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) / 100) * 1e6;
}
function rssBytes(pid: number): number {
  return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
}

interface AudienceRun {
  p50: number;
  p99: number;
  rssGrowth: number;
  cpuUs: number;
  updates: number;
}

async function busyTurns(
  ctx: BenchContext,
  audience: Audience,
  turns: number,
  observers: number,
): Promise<AudienceRun> {
  const host = await startListeningHost(["--default-mode", "auto", "--max-output-stall-ms", "600000"]);
  let observing: Observers | null = null;
  try {
    const pid = (await host.client.stats()).pid;
    const { sessionId } = await host.client.newSession(ctx.cwd);
    await host.client.prompt(sessionId, BUSY_TURN);
    if (audience === "stalled") {
      const stalled = await openStalledClient(host.wsUrl);
      await stalled.call(0, "initialize", { protocolVersion: 1, clientCapabilities: {} });
      await stalled.call(1, "session/attach", { sessionId, role: "observer" });
      stalled.stopReading();
    } else if (audience === "observers") {
      observing = await startObservers(host.wsUrl, sessionId, observers);
    }
    const rssBefore = rssBytes(pid);
    let rssPeak = rssBefore;
    const cpuBefore = cpuMicros(pid);
    const times: number[] = [];
    let updates = 0;
    for (let i = 0; i < turns; i++) {
      const started = performance.now();
      const result = await host.client.prompt(sessionId, BUSY_TURN);
      times.push(performance.now() - started);
      updates += result.updates.length;
      rssPeak = Math.max(rssPeak, rssBytes(pid));
    }
    // The observers have what was sent before the CPU is read.
    const last = eventId((await host.client.prompt(sessionId, "last")).updates.at(-1)!);
    await observing?.waitFor(last);
    const summary = summarize(times);
    return {
      p50: summary.p50,
      p99: summary.p99,
      rssGrowth: (rssPeak - rssBefore) / 2 ** 20,
      cpuUs: cpuMicros(pid) - cpuBefore,
      updates,
    };
  } finally {
    await observing?.close();
    await host.dispose();
  }
}

/** The observers' process (bench/processes/observers.ts), once all are attached. */
async function startObservers(wsUrl: string, sessionId: string, count: number): Promise<Observers> {
  const child = spawn(process.execPath, [OBSERVERS, wsUrl, sessionId, String(count)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (expected: string) => {
    const { value } = await lines.next();
    if (value !== expected) throw new Error(`observers said ${String(value)}, not ${expected}`);
  };
  await next("ready");
  return {
    waitFor: async (eventId) => {
      child.stdin!.write(`wait ${eventId}\n`);
      await next("saw");
    },
    close: async () => {
      child.stdin!.end();
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}

interface Observers {
  /** Resolves once every observer has received that event. */
  waitFor(eventId: string): Promise<void>;
  close(): Promise<void>;
}

async function permissionRaces(ctx: BenchContext, rounds: number): Promise<SharedSessionsResult["permissions"]> {
  const host: ListeningHost = await startListeningHost(["--default-mode", "ask"], {
    permission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
  });
  const second = await HostClient.connect(host.wsUrl, {
    permission: () => ({ outcome: { outcome: "selected", optionId: "reject_once" } }),
  });
  try {
    const { sessionId } = await host.client.newSession(ctx.cwd);
    await second.attach(sessionId, { role: "controller" });
    let allowed = 0;
    let refused = 0;
    let oneOutcomeEach = true;
    for (let round = 0; round < rounds; round++) {
      const result = await host.client.prompt(sessionId, script(bash("true")));
      const status = result.toolCalls[0]?.status;
      if (status === "completed") allowed++;
      else if (status === "failed") refused++;
      else oneOutcomeEach = false;
    }
    return { rounds, oneOutcomeEach: oneOutcomeEach && allowed + refused === rounds, allowed, refused };
  } finally {
    await second.dispose();
    await host.dispose();
  }
}

async function cutConnections(ctx: BenchContext, cuts: number): Promise<SharedSessionsResult["reconnect"]> {
  const host = await startListeningHost(["--default-mode", "auto"]);
  const proxy = await startCutProxy(host.wsUrl);
  const controller = await HostClient.connect(proxy.url(host.wsUrl), {
    reconnect: { initialDelayMs: 5, maxDelayMs: 50 },
  });
  try {
    const { sessionId } = await controller.newSession(ctx.cwd);
    const reference: SessionUpdate[] = [];
    host.client.onSessionUpdate(sessionId, (update) => reference.push(update));
    let turnsEnded = 0;
    host.client.onTurnEnded((ended) => void (ended.sessionId === sessionId && turnsEnded++));
    await host.client.attach(sessionId);
    const seen: SessionUpdate[] = [];
    controller.onSessionUpdate(sessionId, (update) => seen.push(update));
    const random = seeded(200);
    let cutMidTurn = 0;
    let answered = 0;
    for (let i = 0; i < cuts; i++) {
      let done = false;
      const answer = controller
        .prompt(
          sessionId,
          script({ say: `turn ${i}` }, bash("for i in 1 2 3; do echo $i; sleep 0.01; done"), { say: "{{result}}" }),
        )
        .finally(() => (done = true));
      await new Promise((resolve) => setTimeout(resolve, random.int(0, 40)));
      if (proxy.cut() > 0 && !done) cutMidTurn++;
      if ((await answer).stopReason === "end_turn") answered++;
    }
    // The observer's updates may come a little after the controller's (its writes are held to leave together).
    await until(() => turnsEnded === cuts);
    const last = eventId(reference.at(-1)!);
    await until(() => seen.some((update) => eventId(update) === last));
    const seenIds = seen.map(eventId);
    const lost = reference.filter((update) => !seenIds.includes(eventId(update))).length;
    return { cuts, cutMidTurn, answered, lost, repeated: seenIds.length - new Set(seenIds).size };
  } finally {
    await controller.dispose();
    await proxy.close();
    await host.dispose();
  }
}

async function fleetLatency(ctx: BenchContext, turns: number): Promise<SharedSessionsResult["fleet"]> {
  let cluster: TestPostgres;
  try {
    cluster = await TestPostgres.start();
  } catch (error) {
    return { skipped: `no PostgreSQL server to start here (${(error as Error).message.split("\n", 1)[0]})` };
  }
  const hosts = await startHosts(2, await cluster.database(), ["--default-mode", "auto"]);
  const owner = await HostClient.connect(hosts[0]!.url);
  const remote = await HostClient.connect(hosts[1]!.url);
  try {
    const { sessionId } = await owner.newSession(ctx.cwd);
    const atOwner = new Map<string, number>();
    const atRemote = new Map<string, number>();
    owner.onSessionUpdate(sessionId, (update) => atOwner.set(eventId(update), performance.now()));
    remote.onSessionUpdate(sessionId, (update) => atRemote.set(eventId(update), performance.now()));
    await remote.attach(sessionId);
    for (let i = 0; i < turns; i++) await owner.prompt(sessionId, BUSY_TURN);
    const durable = [...atOwner.keys()].filter((id) => /^\d+\.\d+$/.test(id));
    const last = durable.at(-1)!;
    await until(() => atRemote.has(last));
    const delays = durable.flatMap((id) => (atRemote.has(id) ? [atRemote.get(id)! - atOwner.get(id)!] : []));
    const summary = summarize(delays);
    return { updates: delays.length, p50: summary.p50, p99: summary.p99 };
  } finally {
    await owner.dispose();
    await remote.dispose();
    await Promise.all(hosts.map((host) => host.stop("SIGTERM")));
    await cluster.stop();
  }
}

async function logged<T>(ctx: BenchContext, label: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await run();
  ctx.log(`shared sessions: ${label} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

export async function sharedSessions(ctx: BenchContext): Promise<SharedSessionsResult> {
  // A p99 of 100 turns is their second longest: 500 a run and the median of 5 runs move less from run to run.
  const runs = ctx.quick ? 1 : 5;
  const turns = ctx.quick ? 50 : 500;
  const observers = ctx.quick ? 20 : 100;
  const measured: Record<Audience, AudienceRun[]> = { none: [], stalled: [], observers: [] };
  await repeat(ctx, `shared sessions: ${turns} busy turns by audience`, runs, async (rep) => {
    const order = rep % 2 === 0 ? AUDIENCES : [...AUDIENCES].reverse();
    for (const audience of order) measured[audience].push(await busyTurns(ctx, audience, turns, observers));
  });
  const by = (pick: (run: AudienceRun) => number) =>
    Object.fromEntries(AUDIENCES.map((a) => [a, figure(measured[a].map(pick))])) as Record<Audience, Figure>;
  const turnP50 = by((run) => run.p50);
  const turnP99 = by((run) => run.p99);
  const perUpdate = measured.observers.map(
    (run, i) => (run.cpuUs - measured.none[i]!.cpuUs) / (run.updates * observers),
  );
  return {
    runs,
    turns,
    observers,
    turnP50,
    turnP99,
    p99Ratio: { stalled: ratio(turnP99.stalled, turnP99.none), observers: ratio(turnP99.observers, turnP99.none) },
    rssGrowthMiB: by((run) => run.rssGrowth),
    cpuPerUpdatePerObserverUs: figure(perUpdate),
    permissions: await logged(ctx, "permission races", () => permissionRaces(ctx, ctx.quick ? 100 : 1000)),
    reconnect: await logged(ctx, "cut connections", () => cutConnections(ctx, ctx.quick ? 40 : 200)),
    fleet: await logged(ctx, "fleet observer", () => fleetLatency(ctx, ctx.quick ? 10 : 50)),
  };
}

export const scenario: Scenario<SharedSessionsResult> = {
  order: 19,
  key: "sharedSessions",
  flag: "shared-sessions",
  title: "19. Shared sessions: observers, controllers, reconnections and the fleet on one live session",
  run: sharedSessions,
  section: (s) => {
    const fleet =
      "skipped" in s.fleet
        ? [`Fleet: skipped (${s.fleet.skipped}).`]
        : [
            `Fleet: an observer at the host that does not serve the session saw ${s.fleet.updates} updates (those a log ` +
              `entry shows) p50 ${s.fleet.p50.toFixed(1)} ms, p99 ${s.fleet.p99.toFixed(1)} ms after the owner's client did.`,
          ];
    return [
      `${plural(s.runs, "run")} of ${s.turns} turns of one busy session (a command's 400 lines, two messages), driven over ` +
        `WebSocket, alternating: nobody attached; an observer that never reads; ${s.observers} observers reading (raw ` +
        "WebSocket clients in a process of their own, as other clients are, that read every frame and parse none, so the " +
        "figure is the host's).",
      "",
      table(
        ["audience", "turn p50 ms", "turn p99 ms", "p99 ÷ none", "host RSS growth MiB"],
        AUDIENCES.map((a) => [
          a === "none" ? "nobody" : a === "stalled" ? "1 observer not reading" : `${s.observers} observers`,
          fmt(s.turnP50[a]),
          fmt(s.turnP99[a]),
          a === "none" ? "1.00×" : x(a === "stalled" ? s.p99Ratio.stalled : s.p99Ratio.observers),
          fmt(s.rssGrowthMiB[a]),
        ]),
      ),
      "",
      `Host CPU per update per observer: ${fmt(s.cpuPerUpdatePerObserverUs)} µs.`,
      "",
      `Permissions: ${s.permissions.rounds} asked of two controllers answering at once (one allows, one refuses): ` +
        `${s.permissions.oneOutcomeEach ? "exactly one outcome each time" : "NOT one outcome each time"} ` +
        `(${s.permissions.allowed} allowed, ${s.permissions.refused} refused).`,
      "",
      `Reconnections: a controller's connection cut ${s.reconnect.cuts} times (${s.reconnect.cutMidTurn} mid-turn): ` +
        `${s.reconnect.answered} prompts answered end_turn, ${s.reconnect.lost} updates lost, ${s.reconnect.repeated} repeated.`,
      "",
      ...fleet,
    ];
  },
};
