// A client that stops reading a 30 MB answer costs the host's process (RSS, not only the main thread's heap) no more
// than a client that reads it, plus 4 × --max-buffered-bytes; once the turn is over, its client gone and its
// session hibernated, the host comes back to within 1.5× of its RSS after warm-up, and its main thread holds none of
// the answer.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { tempDir } from "../support/host.js";
import { startRemoteHost, tokensFile } from "../support/remote-host.js";
import { openStalledClient } from "../support/stalled-client.js";
import { waitFor, fileSaidTimes } from "../support/tools.js";
import { connectHost } from "../support/checked-host.js";

const MiB = 2 ** 20;
const MAX_BUFFERED = 16 * MiB;
const statusKiB = (pid: number, field: string) =>
  Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
const rssOf = (pid: number) => statusKiB(pid, "VmRSS");
/** The kernel's own peak of the process's RSS (a sample every few ms can miss a short one, in either run). */
const peakRssOf = (pid: number) => statusKiB(pid, "VmHWM");

interface Run {
  warm: number;
  peak: number;
  rest: number;
  heapWarm: number;
  heapRest: number;
}

async function run(reading: boolean): Promise<Run> {
  const tokens = tokensFile(["client", "ops"], ["ops"]);
  const host = await startRemoteHost(
    [
      "--tokens-file",
      tokens.path,
      "--max-buffered-bytes",
      String(MAX_BUFFERED),
      "--max-output-stall-ms",
      "600000",
      "--output-cap-bytes",
      String(256 * 1024),
      "--hibernate-after-ms",
      "2000",
      "--default-mode",
      "auto",
      // As docs/operating.md has an operator run a host on glibc (and HostClient.spawn does).
    ],
    { ...process.env, MALLOC_ARENA_MAX: "2" },
  );
  const pid = host.child.pid!;
  const ops = await connectHost(host.wsUrl, { token: tokens.tokens.ops! });
  try {
    const { sessionId: echo } = await ops.newSession(tempDir());
    for (let i = 0; i < 20; i++) await ops.prompt(echo, "ping");
    let warmThreads: number | null = null;
    const atRest = async () => {
      const hibernated = (id: string) =>
        new RegExp(`"sessionId":"${id}"[^\\n]*"session hibernated`).test(host.stderr());
      await waitFor("the sessions to hibernate", () => hibernated(echo) && (answered === null || hibernated(client)));
      // Their threads gone (a hibernated session's worker ends after the log line), the standby pool as it was.
      await waitFor("the host at rest", async () => {
        const { memory, threads } = await ops.stats();
        return (
          memory.atRest && threads.workers === threads.standby && (warmThreads ?? threads.workers) === threads.workers
        );
      });
      const { memory, threads } = await ops.stats();
      warmThreads ??= threads.workers;
      return { rss: rssOf(pid), heap: memory.heapUsedBytes };
    };
    let answered: Promise<unknown> | null = null;
    let client = "";
    const warm = await atRest();

    const cwd = tempDir();
    writeFileSync(join(cwd, "big.txt"), "x".repeat(200 * 1024));
    const slow = await openStalledClient(host.wsUrl, { Authorization: `Bearer ${tokens.tokens.client}` });
    await slow.call(0, "initialize", { protocolVersion: 1, clientCapabilities: {} });
    client = ((await slow.call(1, "session/new", { cwd, mcpServers: [] })) as { sessionId: string }).sessionId;
    if (!reading) slow.stopReading();
    await ops.prompt(echo, "ping");
    slow.sendPrompt(2, client, fileSaidTimes("big.txt", 150));
    answered = slow.response(2);
    if (!reading) {
      const waits = new RegExp(`"sessionId":"${client}".*session output waits`);
      await waitFor("the turn to wait for its client", () => waits.test(host.stderr()), 60_000);
    }
    // The other session's pings, the same in both runs (they restore its hibernated worker, a thread's worth of RSS,
    // before the turn starts): in the stalled run they come while the turn waits, so what the stall holds stays held
    // through them.
    for (let i = 0; i < 12; i++) await ops.prompt(echo, "ping");
    if (!reading) slow.resumeReading();
    expect(await answered).toMatchObject({ result: { stopReason: "end_turn" } });
    const peak = peakRssOf(pid);
    expect(slow.agentText()).toBe(150 * 200 * 1024);
    slow.socket.destroy();
    const rest = await atRest();
    return { warm: warm.rss, peak, rest: rest.rss, heapWarm: warm.heap, heapRest: rest.heap };
  } finally {
    await ops.dispose();
    expect(await host.stop()).toBe(0);
  }
}

it(
  "a client that stops reading costs the process's RSS no more than one that reads, plus 4 × --max-buffered-bytes",
  { timeout: 240_000 },
  async () => {
    const reading = await run(true);
    const stalled = await run(false);
    const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;
    for (const [name, r] of [
      ["reading", reading],
      ["stalled", stalled],
    ] as const)
      console.log(
        `${name}: warm ${mib(r.warm)}, peak +${mib(r.peak - r.warm)}, at rest ${mib(r.rest)} (${(r.rest / r.warm).toFixed(2)}×); main heap ${mib(r.heapWarm)} → ${mib(r.heapRest)}`,
      );
    expect(stalled.peak - stalled.warm).toBeLessThanOrEqual(reading.peak - reading.warm + 4 * MAX_BUFFERED);
    for (const r of [reading, stalled]) {
      expect(r.rest).toBeLessThanOrEqual(1.5 * r.warm);
      // The main thread keeps nothing of the answer once it is out (it kept the turn's last message, 30 MB here).
      expect(r.heapRest - r.heapWarm).toBeLessThan(8 * MiB);
    }
  },
);
