// Test support: a throwaway PostgreSQL cluster (initdb into a temp dir, postgres listening on a Unix socket there, no
// TCP port), run as the `postgres` system user when the tests run as root (the server refuses root). Debian puts the
// server's programs in /usr/lib/postgresql/<version>/bin, off PATH.
import { afterAll, beforeAll } from "vitest";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { once } from "node:events";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";

function serverBin(name: string): string {
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, "bin", name)))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(debian, versions[0], "bin", name);
  }
  return name;
}

/** Runs a server program as the postgres user when this process is root. */
function asServerUser(): { uid: number; gid: number } | null {
  if (userInfo().uid !== 0) return null;
  const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
  return { uid: id("-u"), gid: id("-g") };
}

export interface ClusterOptions {
  /**
   * fsync=on (and an initdb that syncs): for the tests that claim a committed turn survives. Off by default: a cluster
   * whose commits only reach the page cache is faster, and a process kill (which these tests use) does not lose them.
   */
  durable?: boolean;
}

export class TestPostgres {
  readonly dir: string;
  readonly durable: boolean;
  readonly #user: { uid: number; gid: number } | null;
  #server: ChildProcess | null = null;
  #databases = 0;

  private constructor(dir: string, user: { uid: number; gid: number } | null, durable: boolean) {
    this.dir = dir;
    this.#user = user;
    this.durable = durable;
  }

  /** A fresh cluster, started. */
  static async start(options: ClusterOptions = {}): Promise<TestPostgres> {
    const durable = options.durable === true;
    const dir = mkdtempSync(join(tmpdir(), "ash-pg-"));
    const user = asServerUser();
    if (user) {
      chownSync(dir, user.uid, user.gid);
      chmodSync(dir, 0o755);
    }
    const init = spawnSync(
      serverBin("initdb"),
      [
        "-D",
        join(dir, "data"),
        "-U",
        "ash",
        "--auth=trust",
        ...(durable ? [] : ["--no-sync"]),
        "-E",
        "UTF8",
        "--locale=C",
      ],
      {
        encoding: "utf8",
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
      },
    );
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
    const cluster = new TestPostgres(dir, user, durable);
    await cluster.startServer();
    return cluster;
  }

  /** A URL of a fresh database of this cluster (one per test keeps tests apart). */
  async database(): Promise<string> {
    const name = `ash_${++this.#databases}`;
    const admin = new pg.Client({ connectionString: this.url("postgres") });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    return this.url(name);
  }

  url(database: string): string {
    return `postgres://ash@/${database}?host=${encodeURIComponent(this.dir)}`;
  }

  /** Starts the server (again); resolves once it accepts connections. */
  async startServer(): Promise<void> {
    const server = spawn(
      serverBin("postgres"),
      [
        "-D",
        join(this.dir, "data"),
        "-k",
        this.dir,
        "-c",
        "listen_addresses=",
        "-c",
        `fsync=${this.durable ? "on" : "off"}`,
        "-c",
        "max_connections=200",
      ],
      { stdio: ["ignore", "ignore", "pipe"], ...(this.#user ? { uid: this.#user.uid, gid: this.#user.gid } : {}) },
    );
    let log = "";
    server.stderr!.setEncoding("utf8");
    server.stderr!.on("data", (chunk: string) => (log += chunk));
    this.#server = server;
    const ready = Date.now() + 30_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`postgres exited: ${log}`);
      const client = new pg.Client({ connectionString: this.url("postgres") });
      try {
        await client.connect();
        await client.end();
        return;
      } catch {
        await client.end().catch(() => {});
        if (Date.now() > ready) throw new Error(`postgres did not start: ${log}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** Stops the server (fast shutdown: connections are cut). */
  async stopServer(): Promise<void> {
    const server = this.#server;
    if (!server || server.exitCode !== null) return;
    this.#server = null;
    const exited = once(server, "exit");
    server.kill("SIGINT");
    await exited;
  }

  async stop(): Promise<void> {
    await this.stopServer();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A client for looking into a store from a test. */
export async function query<Row extends pg.QueryResultRow = Record<string, unknown>>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A throwaway cluster for the test file that calls this (at its top level): started before its tests, stopped after
 * them and after the file's own afterAll hooks registered later (which may still stop hosts that use it).
 */
export function postgresPerFile(options: ClusterOptions = {}): { database(): Promise<string> } {
  let cluster: TestPostgres | undefined;
  beforeAll(async () => {
    cluster = await TestPostgres.start(options);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });
  return {
    database: () => {
      if (!cluster)
        throw new Error("postgresPerFile(): the cluster is started in beforeAll; ask for a database in a test");
      return cluster.database();
    },
  };
}
