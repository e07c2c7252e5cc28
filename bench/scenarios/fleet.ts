// Scenario 12: the fleet on PostgreSQL, on a throwaway cluster the bench starts (skipped where PostgreSQL is not
// installed). Throughput of one host with the PostgreSQL store against the same host with the state dir (group commit
// against a per-session fsync); how long a host killed with SIGKILL keeps its sessions from answering elsewhere (its
// leases must expire first); a takeover between two live hosts; a session/list page over many stored sessions; and
// how many appends one PostgreSQL primary takes from several hosts at once (the ceiling to plan a fleet by).
import { HostClient } from "../../src/client/index.js";
import { FleetHost } from "../../test/support/fleet.js";
import { freePort } from "../../test/support/free-port.js";
import { query, TestPostgres } from "../../test/support/postgres.js";
import type { BenchContext, Skipped } from "../context.js";
import { repeat } from "../context.js";
import { figure, figures, ratio, summarize, type Figure } from "../support/stats.js";
import { echoPrompts, openSessions, startHost, withSystem } from "../support/systems.js";
import { fmt, plural, table, x } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

export interface FleetResult {
  runs: number;
  throughput: {
    sessions: number;
    prompts: number;
    postgres: Figure;
    dir: Figure;
    ratio: number;
    commitsPerTurn: Figure;
  };
  failover: { sessions: number; leaseMs: number; ms: Figure };
  takeover: { samples: number; p50: Figure; p99: Figure };
  list: { sessions: number; pageSize: number; pageP50: Figure; pageP99: Figure };
  appends: { hosts: number; sessions: number; appendsPerSecond: Figure; commitsPerSecond: Figure; p99: Figure };
}

const LEASE_MS = 10_000;
/** A quick run's lease: a failover waits for it to expire. */
const QUICK_LEASE_MS = 3_000;

export async function fleet(ctx: BenchContext): Promise<FleetResult | Skipped> {
  let cluster: TestPostgres;
  try {
    cluster = await TestPostgres.start();
  } catch (error) {
    return { skipped: `no PostgreSQL server to start here (${(error as Error).message.split("\n", 1)[0]})` };
  }
  try {
    const runs = ctx.quick ? 1 : 3;
    return {
      runs,
      throughput: await throughput(ctx, cluster, runs),
      failover: await failover(ctx, cluster, runs),
      takeover: await takeover(ctx, cluster, runs),
      list: await listPages(ctx, cluster, runs),
      appends: await appends(ctx, cluster, runs),
    };
  } finally {
    await cluster.stop();
  }
}

async function throughput(ctx: BenchContext, cluster: TestPostgres, runs: number): Promise<FleetResult["throughput"]> {
  const sessions = ctx.quick ? 10 : 100;
  const prompts = ctx.quick ? 2 : 20;
  const args = ["--max-live-workers", String(sessions + 8)];
  const measured = await repeat(
    ctx,
    `fleet: ${sessions} × ${prompts} echo prompts, postgres against dir`,
    runs,
    async (rep) => {
      const url = await cluster.database();
      const onPostgres = () =>
        withSystem(startHost([...args, "--store", url]), async ({ client }) => {
          const ids = await openSessions(client, sessions, ctx.cwd);
          const before = (await client.stats()).store.commits;
          const measure = await echoPrompts(client, ids, prompts, "postgres");
          return { ...measure, commitsPerTurn: ((await client.stats()).store.commits - before) / (sessions * prompts) };
        });
      const onDir = () =>
        withSystem(startHost(args), async ({ client }) =>
          echoPrompts(client, await openSessions(client, sessions, ctx.cwd), prompts, "dir"),
        );
      // Alternate the order so slow drift of the machine does not favour one of them.
      if (rep % 2 === 0) {
        const postgres = await onPostgres();
        return { postgres, dir: await onDir() };
      }
      const dir = await onDir();
      return { postgres: await onPostgres(), dir };
    },
  );
  const postgres = figure(measured.map((m) => m.postgres.promptsPerSecond));
  const dir = figure(measured.map((m) => m.dir.promptsPerSecond));
  return {
    sessions,
    prompts,
    postgres,
    dir,
    ratio: ratio(postgres, dir),
    commitsPerTurn: figure(measured.map((m) => m.postgres.commitsPerTurn)),
  };
}

/** Hosts on one store; the caller stops them. */
async function hosts(count: number, url: string, leaseMs: number): Promise<FleetHost[]> {
  const started: FleetHost[] = [];
  for (let i = 1; i <= count; i++)
    started.push(
      new FleetHost(`bench-${i}`, await freePort(), [
        "--store",
        url,
        "--lease-ms",
        String(leaseMs),
        "--hibernate-after-ms",
        "0",
      ]),
    );
  await Promise.all(started.map((host) => host.start()));
  return started;
}

async function stopAll(fleet: FleetHost[], clients: HostClient[]): Promise<void> {
  await Promise.all(clients.map((client) => client.dispose().catch(() => {})));
  await Promise.all(fleet.map((host) => host.stop("SIGTERM").catch(() => {})));
}

function leaseOf(ctx: BenchContext): number {
  return ctx.quick ? QUICK_LEASE_MS : LEASE_MS;
}

async function failover(ctx: BenchContext, cluster: TestPostgres, runs: number): Promise<FleetResult["failover"]> {
  const sessions = ctx.quick ? 10 : 100;
  const measured = await repeat(ctx, `fleet: kill -9 of a host holding ${sessions} sessions`, runs, async () => {
    const url = await cluster.database();
    const fleet = await hosts(2, url, leaseOf(ctx));
    const [victim, survivor] = fleet as [FleetHost, FleetHost];
    const clients: HostClient[] = [];
    try {
      const before = await HostClient.connect(victim.url);
      clients.push(before);
      const ids = await openSessions(before, sessions, ctx.cwd);
      const after = await HostClient.connect(survivor.url);
      clients.push(after);
      const killed = performance.now();
      victim.signal("SIGKILL");
      await Promise.all(
        ids.map(async (id) => {
          await after.resume(id, ctx.cwd);
          await after.prompt(id, "after the failover");
        }),
      );
      return performance.now() - killed;
    } finally {
      await stopAll(fleet, clients);
    }
  });
  return { sessions, leaseMs: leaseOf(ctx), ms: figure(measured) };
}

async function takeover(ctx: BenchContext, cluster: TestPostgres, runs: number): Promise<FleetResult["takeover"]> {
  const samples = ctx.quick ? 4 : 50;
  const measured = await repeat(ctx, `fleet: ${samples} takeovers between live hosts`, runs, async () => {
    const url = await cluster.database();
    const fleet = await hosts(2, url, leaseOf(ctx));
    const clients: HostClient[] = [];
    try {
      const first = await HostClient.connect(fleet[0]!.url);
      const second = await HostClient.connect(fleet[1]!.url);
      clients.push(first, second);
      const ids = await openSessions(first, samples, ctx.cwd);
      const times: number[] = [];
      for (const id of ids) {
        const t0 = performance.now();
        await second.resume(id, ctx.cwd);
        times.push(performance.now() - t0);
      }
      const { p50, p99 } = summarize(times);
      return { p50, p99 };
    } finally {
      await stopAll(fleet, clients);
    }
  });
  const fig = figures(measured, ["p50", "p99"] as const);
  return { samples, p50: fig.p50, p99: fig.p99 };
}

async function listPages(ctx: BenchContext, cluster: TestPostgres, runs: number): Promise<FleetResult["list"]> {
  const sessions = ctx.quick ? 5_000 : 100_000;
  const pageSize = 100;
  const url = await cluster.database();
  // The schema is the host's: let one host make it, then fill it in bulk as a long-lived fleet would have.
  await withSystem(startHost(["--store", url]), async () => {});
  await query(
    url,
    `INSERT INTO ash_sessions (id, cwd, header, created_ms, updated_ms, title, turns)
     SELECT gen_random_uuid(), '/srv/project-' || (n % 100), '{}', 1767225600000 + n * 1000, 1767225600000 + n * 1000 + 500, 'session ' || n, 3
     FROM generate_series(1, $1) AS n`,
    [sessions],
  );
  await query(url, "ANALYZE ash_sessions");
  const measured = await repeat(ctx, `fleet: session/list over ${sessions} sessions in PostgreSQL`, runs, () =>
    withSystem(startHost(["--store", url, "--list-page-size", String(pageSize)]), async ({ client }) => {
      let page = await client.list({});
      const times: number[] = [];
      for (let i = 0; i < 50 && page.nextCursor; i++) {
        const t0 = performance.now();
        page = await client.list({ cursor: page.nextCursor });
        times.push(performance.now() - t0);
      }
      const { p50, p99 } = summarize(times);
      return { p50, p99 };
    }),
  );
  const fig = figures(measured, ["p50", "p99"] as const);
  return { sessions, pageSize, pageP50: fig.p50, pageP99: fig.p99 };
}

async function appends(ctx: BenchContext, cluster: TestPostgres, runs: number): Promise<FleetResult["appends"]> {
  const hostCount = 3;
  const perHost = ctx.quick ? 5 : 100;
  const prompts = ctx.quick ? 2 : 20;
  const measured = await repeat(ctx, `fleet: appends from ${hostCount} hosts × ${perHost} sessions`, runs, async () => {
    const url = await cluster.database();
    const fleet = await hosts(hostCount, url, leaseOf(ctx));
    const clients: HostClient[] = [];
    try {
      for (const host of fleet) clients.push(await HostClient.connect(host.url));
      const ids = await Promise.all(clients.map((client) => openSessions(client, perHost, ctx.cwd)));
      const count = async () =>
        Number((await query<{ n: string }>(url, "SELECT count(*) AS n FROM ash_records"))[0]!.n);
      const commits = async () =>
        (await Promise.all(clients.map(async (client) => (await client.stats()).store.commits))).reduce(
          (a, b) => a + b,
          0,
        );
      const [records0, commits0] = [await count(), await commits()];
      const t0 = performance.now();
      const measures = await Promise.all(
        clients.map((client, index) => echoPrompts(client, ids[index]!, prompts, "fleet")),
      );
      const seconds = (performance.now() - t0) / 1000;
      const [records1, commits1] = [await count(), await commits()];
      return {
        appendsPerSecond: (records1 - records0) / seconds,
        commitsPerSecond: (commits1 - commits0) / seconds,
        p99: Math.max(...measures.map((m) => m.p99)),
      };
    } finally {
      await stopAll(fleet, clients);
    }
  });
  const fig = figures(measured, ["appendsPerSecond", "commitsPerSecond", "p99"] as const);
  return { hosts: hostCount, sessions: hostCount * perHost, ...fig };
}

export const scenario: Scenario<FleetResult> = {
  order: 12,
  key: "fleet",
  flag: "fleet",
  title: "12. Fleet: sessions in PostgreSQL",
  run: fleet,
  section: (f) => [
    `${plural(f.runs, "run")}, on a throwaway PostgreSQL cluster on this machine (fsync on). ` +
      `Throughput: one host, ${f.throughput.sessions} sessions × ${f.throughput.prompts} echo prompts, with the PostgreSQL store against the state dir; ` +
      "commits/turn counts the statements that committed appends (group commit) per turn ended. " +
      `Failover: a host holding ${f.failover.sessions} sessions killed with SIGKILL, until every one of them was resumed and answered a prompt on another host (--lease-ms ${f.failover.leaseMs}: a dead host's leases must expire first). ` +
      `Takeover: session/resume on one live host of a session another live host holds (${f.takeover.samples} one after another). ` +
      `List: a page of ${f.list.pageSize} over ${f.list.sessions} stored sessions. ` +
      `Appends: ${f.appends.hosts} hosts × ${f.appends.sessions / f.appends.hosts} sessions sending echo prompts at once; records committed per second (what one primary took from them).`,
    "",
    table(
      ["measure", "figure", "goal"],
      [
        ["prompts/s, PostgreSQL store", fmt(f.throughput.postgres), ""],
        ["prompts/s, state dir", fmt(f.throughput.dir), ""],
        ["PostgreSQL/dir", x(f.throughput.ratio), "≥ 1.0×"],
        ["commits/turn", fmt(f.throughput.commitsPerTurn, 2), "< 1"],
        ["failover ms", fmt(f.failover.ms), `≤ ${f.failover.leaseMs + 2000}`],
        ["takeover p50 ms", fmt(f.takeover.p50), "≤ 50"],
        ["takeover p99 ms", fmt(f.takeover.p99), ""],
        ["list page p50 ms", fmt(f.list.pageP50), "≤ 20"],
        ["list page p99 ms", fmt(f.list.pageP99), ""],
        ["appends/s (records committed)", fmt(f.appends.appendsPerSecond), "stated"],
        ["commits/s", fmt(f.appends.commitsPerSecond), ""],
        ["prompt p99 ms meanwhile", fmt(f.appends.p99), ""],
      ],
    ),
  ],
};
