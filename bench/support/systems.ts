// The two systems under test, both subprocesses on stdio driven by the same HostClient: the host, and the floor.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HostClient, type PermissionPolicy } from "../../src/client/index.js";
import { recordIncident } from "./incidents.js";
import { summarize } from "./stats.js";

export type SystemName = "host" | "floor";

export interface System {
  name: SystemName;
  client: HostClient;
  pid: number;
  /** The last few KB the process wrote to stderr. */
  stderrTail(): string;
  dispose(timeoutMs?: number): Promise<number | null>;
}

const FLOOR_AGENT = fileURLToPath(new URL("../processes/floor-agent.js", import.meta.url));
const TAIL_BYTES = 8192;

/**
 * Starts acp-session-host with `args`. Unless the args say otherwise: logs at warn, a throwaway state dir (removed at
 * dispose), and no hibernation, so every session measured is a live one with its worker.
 */
export async function startHost(
  args: string[] = [],
  permission: PermissionPolicy = "allow",
  env?: NodeJS.ProcessEnv,
): Promise<System> {
  const has = (flag: string) => args.some((arg) => arg === flag || arg.startsWith(`${flag}=`));
  const stateDir = has("--state-dir") ? null : mkdtempSync(join(tmpdir(), "ash-bench-state-"));
  const defaults = [
    ...(has("--log-level") ? [] : ["--log-level", "warn"]),
    ...(stateDir ? ["--state-dir", stateDir] : []),
    ...(has("--hibernate-after-ms") ? [] : ["--hibernate-after-ms", "0"]),
  ];
  try {
    const system = await start("host", {
      hostArgs: [...defaults, ...args],
      permission,
      ...(env ? { env: { ...process.env, ...env } } : {}),
    });
    if (!stateDir) return system;
    return {
      ...system,
      dispose: async (timeoutMs) => {
        try {
          return await system.dispose(timeoutMs);
        } finally {
          rmSync(stateDir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
}

/** Starts the floor agent (bench/processes/floor-agent.ts). */
export function startFloor(): Promise<System> {
  return start("floor", { command: process.execPath, args: [FLOOR_AGENT], permission: "allow" });
}

export function startSystem(name: SystemName, hostArgs: string[] = []): Promise<System> {
  return name === "host" ? startHost(hostArgs) : startFloor();
}

async function start(name: SystemName, options: Parameters<typeof HostClient.spawn>[0]): Promise<System> {
  const client = await HostClient.spawn({ ...options, stderr: "pipe" });
  const child = client.child!;
  let tail = "";
  // Always drain stderr: the host logs synchronously, and a full pipe would stall its main thread.
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    tail = (tail + chunk).slice(-TAIL_BYTES);
  });
  return { name, client, pid: child.pid!, stderrTail: () => tail, dispose: (timeoutMs) => client.dispose(timeoutMs) };
}

/** Opens `count` sessions at once (in waves of `wave`); with `warm`, each answers one prompt so its worker is up. */
export async function openSessions(
  client: HostClient,
  count: number,
  cwd: string,
  options: { warm?: boolean; wave?: number; mode?: string } = {},
): Promise<string[]> {
  const { warm = true, wave = 50 } = options;
  const ids: string[] = [];
  for (let start = 0; start < count; start += wave) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(wave, count - start) }, async () => {
        const { sessionId } = await client.newSession(cwd, options.mode ? { mode: options.mode } : {});
        if (warm) await warmUp(client, sessionId);
        return sessionId;
      }),
    );
    ids.push(...batch);
  }
  return ids;
}

/** The first prompt of a session; a failure is recorded as an incident and retried twice. */
async function warmUp(client: HostClient, sessionId: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.prompt(sessionId, "warm up");
      return;
    } catch (error) {
      recordIncident(`warm-up prompt failed (retried): ${(error as Error).message}`);
      if (attempt === 3) throw error;
    }
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `task` with `system`, then disposes it whatever happens. */
export async function withSystem<T>(system: Promise<System>, task: (system: System) => Promise<T>): Promise<T> {
  const started = await system;
  try {
    return await task(started);
  } finally {
    await started.dispose(10_000);
  }
}

export interface EchoMeasure {
  promptsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
}

/** Every session sends `prompts` echo prompts one after another, all at once; throws on an unexpected answer. */
export async function echoPrompts(
  client: HostClient,
  ids: readonly string[],
  prompts: number,
  label: string,
): Promise<EchoMeasure> {
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    ids.map(async (id) => {
      for (let i = 0; i < prompts; i++) {
        const sent = performance.now();
        const result = await client.prompt(id, `prompt ${i}`);
        latencies.push(performance.now() - sent);
        if (result.stopReason !== "end_turn" || result.text !== `You said: prompt ${i}`) {
          throw new Error(`${label}: unexpected answer ${result.stopReason} ${JSON.stringify(result.text)}`);
        }
      }
    }),
  );
  const wall = performance.now() - started;
  const { p50, p95, p99 } = summarize(latencies);
  return { promptsPerSecond: (latencies.length * 1000) / wall, p50, p95, p99 };
}
