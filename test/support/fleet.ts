// Test support: a fleet of real hosts sharing one PostgreSQL store, each serving --listen on a port of its own, and
// HAProxy in front of them run from the repository's own deploy/haproxy.cfg.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { CLI, REPO_ROOT } from "./cli-path.js";
import { freePort } from "./free-port.js";
import { tempDir } from "./temp-dirs.js";
import { withTestRoot } from "./remote-host.js";

const HAPROXY_CFG = join(REPO_ROOT, "deploy/haproxy.cfg");

export class FleetHost {
  readonly hostId: string;
  readonly port: number;
  readonly stateDir: string;
  readonly #args: string[];
  #child: ChildProcess | null = null;
  #exited: Promise<[number | null, NodeJS.Signals | null]> | null = null;
  #log = "";

  constructor(hostId: string, port: number, args: string[]) {
    this.hostId = hostId;
    this.port = port;
    this.stateDir = tempDir("ash-fleet-state-");
    this.#args = args;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/acp`;
  }

  get pid(): number {
    return this.#child!.pid!;
  }

  get child(): ChildProcess | null {
    return this.#child;
  }

  stderr(): string {
    return this.#log;
  }

  /** Starts the host process; resolves once it listens. */
  async start(): Promise<void> {
    const args = [
      CLI,
      "serve",
      "--listen",
      `127.0.0.1:${this.port}`,
      "--host-id",
      this.hostId,
      "--state-dir",
      this.stateDir,
      "--log-level",
      "debug",
      ...withTestRoot(this.#args),
    ];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
    this.#child = child;
    this.#exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    child.stderr!.setEncoding("utf8");
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: string) => {
        this.#log += chunk;
        if (this.#log.includes('"msg":"acp-session-host listening"')) {
          resolve();
        }
      };
      child.stderr!.on("data", onData);
      // "close", not "exit": by then its stderr is all read, and the error quotes all of it.
      child.once("close", (code) =>
        reject(new Error(`host ${this.hostId} exited (${code}) before listening: ${this.#log}`)),
      );
    });
  }

  /** Sends the signal; resolves with the exit code and signal once the process is gone. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<[number | null, NodeJS.Signals | null]> {
    const child = this.#child!;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return this.#exited!;
  }

  signal(signal: NodeJS.Signals): void {
    this.#child?.kill(signal);
  }
}

export class Proxy {
  readonly port: number;
  readonly #child: ChildProcess;
  #log = "";

  private constructor(port: number, child: ChildProcess) {
    this.port = port;
    this.#child = child;
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => (this.#log += chunk));
  }

  /** HAProxy from deploy/haproxy.cfg over these hosts, health checks every checkMs. */
  static async start(hosts: readonly FleetHost[], checkMs = 200): Promise<Proxy> {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, ACP_BIND: `127.0.0.1:${port}`, ACP_CHECK_MS: String(checkMs) };
    hosts.forEach((host, index) => (env[`ACP_HOST_${index + 1}`] = `127.0.0.1:${host.port}`));
    const child = spawn("haproxy", ["-db", "-f", HAPROXY_CFG], { stdio: ["ignore", "ignore", "pipe"], env });
    const proxy = new Proxy(port, child);
    await proxy.#listening();
    return proxy;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/acp`;
  }

  get httpUrl(): string {
    return `http://127.0.0.1:${this.port}/acp`;
  }

  stderr(): string {
    return this.#log;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = once(this.#child, "exit");
    this.#child.kill("SIGTERM");
    await exited;
  }

  async #listening(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      if (this.#child.exitCode !== null) throw new Error(`haproxy exited: ${this.#log}`);
      try {
        const response = await fetch(`http://127.0.0.1:${this.port}/healthz`);
        await response.arrayBuffer();
        return;
      } catch (error) {
        if (attempt > 200) throw error;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
  }
}

/** Starts `count` hosts on one store, each with the given flags; host ids h1, h2, … */
export async function startHosts(count: number, storeUrl: string, args: string[] = []): Promise<FleetHost[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) => startOnFreePort(`h${i + 1}`, ["--store", storeUrl, ...args])),
  );
}

/**
 * A host on a port nobody listened on a moment before. Another test's server can take that port before the host
 * listens (seen once in CI: EADDRINUSE): the host is then started again on another.
 */
async function startOnFreePort(hostId: string, args: string[]): Promise<FleetHost> {
  for (let attempt = 1; ; attempt++) {
    const host = new FleetHost(hostId, await freePort(), args);
    try {
      await host.start();
      return host;
    } catch (error) {
      if (attempt >= 5 || !host.stderr().includes("EADDRINUSE")) throw error;
    }
  }
}
