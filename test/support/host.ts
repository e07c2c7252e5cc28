// Test support: a real host subprocess over real stdio, driven by the package's own client, in temp dirs. Every
// message the host sends is checked against the ACP SDK's schema (support/checked-host.ts) unless a test opts out
// (`schemaChecked: false`, for a test that makes the host answer what no schema describes); the setup file
// (temp-dirs-cleanup.ts) fails the test in which a violation arrived, and the file, for one after its last test.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk/unstable";
import { afterEach, expect } from "vitest";
import { HostClient, type PermissionPolicy, type Understands } from "../../src/client/index.js";
import { checkedStream } from "./checked-host.js";
import { CLI } from "./cli-path.js";
import { tempDir } from "./temp-dirs.js";

import { stillThere } from "./proc.js";

export { descendantIdentities, descendants, isAlive, threadCount } from "./proc.js";
export { tempDir } from "./temp-dirs.js";

export interface TestHost {
  client: HostClient;
  /** The host process (the client is attached to its stdio, so `client.child` is null). */
  child: ChildProcess;
  pid: number;
  /** Every schema violation in what the host sent so far (always empty when started with `schemaChecked: false`). */
  violations: string[];
  /** Everything the host wrote to stderr so far (JSON log lines). */
  stderr(): string;
  /** Ends the host cleanly: closes its stdin and waits for it to exit (SIGKILL after 10 s); resolves with its code. */
  dispose(): Promise<number | null>;
  /** SIGKILLs the host; resolves once it is gone. */
  kill(): Promise<void>;
}

export interface HostOptions extends Understands {
  /** Default true: every message the host sends is checked against the SDK's schema. */
  schemaChecked?: boolean;
}

/** A host on stdio, its state in a temp dir unless the args name one (--state-dir, or --store). */
export async function startHost(
  hostArgs: string[] = [],
  permission: PermissionPolicy = "deny",
  env?: NodeJS.ProcessEnv,
  options: HostOptions = {},
): Promise<TestHost> {
  // Session logs go to a temp state dir unless the test names one: never the user's ~/.local/state.
  const stateDir =
    hostArgs.includes("--state-dir") || hostArgs.includes("--store") ? [] : ["--state-dir", tempDir("ash-state-")];
  // As HostClient.spawn starts it (docs/performance.md on MALLOC_ARENA_MAX).
  const child = spawn(process.execPath, [CLI, "serve", "--log-level", "debug", ...stateDir, ...hostArgs], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { MALLOC_ARENA_MAX: "2", ...(env ?? process.env) },
  });
  await once(child, "spawn");
  let log = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => (log += chunk));
  const exited = once(child, "exit");
  const violations: string[] = [];
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  let client: HostClient;
  try {
    client = await HostClient.attach(options.schemaChecked === false ? stream : checkedStream(stream, violations), {
      permission,
      ...(options.subagents !== undefined ? { subagents: options.subagents } : {}),
      ...(options.compaction !== undefined ? { compaction: options.compaction } : {}),
      ...(options.notices !== undefined ? { notices: options.notices } : {}),
    });
  } catch (error) {
    // As HostClient.spawn: a host that exits before answering (a bad flag) rejects, and leaves no process behind.
    if (!gone()) child.kill("SIGKILL");
    throw error;
  }
  return {
    client,
    child,
    pid: child.pid!,
    violations,
    stderr: () => log,
    dispose: async () => {
      if (!gone()) {
        child.stdin.end();
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await client.dispose();
      return child.exitCode;
    },
    kill: async () => {
      if (!gone()) {
        child.kill("SIGKILL");
        await exited;
      }
      await client.dispose();
    },
  };
}

/**
 * The hosts a test file starts, each disposed after its test and held to the schema: push every started host on the
 * list this returns.
 */
export function hostsPerTest(): TestHost[] {
  const hosts: TestHost[] = [];
  afterEach(async () => {
    for (const host of hosts.splice(0)) {
      await host.dispose();
      expect(host.violations).toEqual([]);
    }
  });
  return hosts;
}

/** How a test ends a host: "uncaught fault" needs a host preloaded with test/fixtures/fault-on-signal.mjs. */
export type HostEnding = "SIGTERM" | "SIGINT" | "stdin closed" | "uncaught fault";

export interface HostEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Of the processes listed before the end (descendantIdentities), those still in the process table at the exit. */
  left: string[];
}

/** Ends the host; `listed` is checked in the exit event's own callback, before anything else can run. */
export function endHost(host: TestHost, ending: HostEnding, listed: readonly string[] = []): Promise<HostEnd> {
  const ended = new Promise<HostEnd>((resolve) =>
    host.child.once("exit", (code, signal) => resolve({ code, signal, left: stillThere(listed) })),
  );
  if (ending === "stdin closed") host.child.stdin!.end();
  else process.kill(host.pid, ending === "uncaught fault" ? "SIGUSR2" : ending);
  return ended;
}
