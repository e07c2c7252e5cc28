// Limits of the remote listener: a client that stops reading is disconnected without slowing anyone else, new
// connections beyond --max-connections are refused, oversized messages are refused, idle connections time out, and
// SIGTERM settles prompts as cancelled, closes connections and exits 0.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type HostClient } from "../../src/client/index.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, type RemoteHost } from "../support/remote-host.js";
import { openStalledClient } from "../support/stalled-client.js";
import { bash, processesRunning, script, waitFor, fileSaidTimes } from "../support/tools.js";
import { connectHost } from "../support/checked-host.js";

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

async function echoLatencies(
  client: HostClient,
  sessionId: string,
  until: () => boolean,
  atLeast: number,
): Promise<number[]> {
  const latencies: number[] = [];
  while (latencies.length < atLeast || !until()) {
    const started = performance.now();
    expect((await client.prompt(sessionId, "ping")).text).toBe("You said: ping");
    latencies.push(performance.now() - started);
  }
  return latencies;
}

describe("a client that stops reading", () => {
  let host: RemoteHost;
  afterAll(async () => {
    expect(await host.stop()).toBe(0);
  });

  it(
    "is disconnected once its buffer has stalled, while another client's prompts go on being answered",
    { timeout: 180_000 },
    async () => {
      const stallMs = 3000;
      host = await startRemoteHost([
        "--max-buffered-bytes",
        String(256 * 1024),
        "--max-message-bytes",
        String(64 * 1024),
        "--max-output-stall-ms",
        String(stallMs),
        "--output-cap-bytes",
        String(2 * 1024 * 1024),
        "--default-mode",
        "auto",
      ]);
      const other = await connectHost(host.wsUrl);
      const { sessionId: otherSession } = await other.newSession(tempDir());
      await echoLatencies(other, otherSession, () => true, 5);
      const baseline = await echoLatencies(other, otherSession, () => true, 30);

      const cwd = tempDir();
      writeFileSync(join(cwd, "big.txt"), "x".repeat(1024 * 1024));
      const slow = await openStalledClient(host.wsUrl);
      await slow.call(0, "initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = (await slow.call(1, "session/new", { cwd, mcpServers: [] })) as { sessionId: string };
      slow.stopReading();
      // 8 MB of answer for a client that reads none of it: more than the socket buffers and the host's 256 KiB.
      slow.sendPrompt(2, sessionId, fileSaidTimes("big.txt", 8));
      const sent = performance.now();
      // The other client is connection c1, the stalled one c2.
      const stalledClosed = () =>
        /"connection":"c2","tenant":null,"detached":1,"msg":"connection closed"/.test(host.stderr());
      const during = await echoLatencies(other, otherSession, stalledClosed, 30);
      expect(performance.now() - sent).toBeGreaterThanOrEqual(stallMs);
      expect(host.stderr()).toContain(`output stalled for maxOutputStallMs (${stallMs})`);
      // The latency itself is a figure for the bench, not a threshold here (it moves with the machine's load).
      console.log(
        `other client's echo p50 while one stalls: ${median(during).toFixed(1)} ms (before: ${median(baseline).toFixed(1)} ms)`,
      );
      // The other client never noticed; the stalled one finds its connection closed once it reads again.
      expect((await other.prompt(otherSession, "still fine")).text).toBe("You said: still fine");
      slow.resumeReading();
      await slow.closed;
      await other.dispose();
    },
  );
});

describe("connection limits", () => {
  let host: RemoteHost;
  afterAll(async () => {
    expect(await host.stop()).toBe(0);
  });

  it("counts every socket against --max-connections, refuses messages beyond --max-message-bytes, closes idle connections", async () => {
    // An idle timeout well above what the steps between a connection's messages take on a loaded machine.
    host = await startRemoteHost([
      "--max-connections",
      "3",
      "--max-message-bytes",
      "4096",
      "--idle-timeout-ms",
      "4000",
    ]);
    const open = [await connectHost(host.wsUrl), await connectHost(host.wsUrl), await connectHost(host.wsUrl)];
    // A fourth socket is closed as it comes, whatever it would have asked.
    await expect(connectHost(host.httpUrl)).rejects.toThrow();
    await expect(connectHost(host.wsUrl)).rejects.toThrow();
    expect(host.stderr()).toContain("socket refused: --max-connections reached");

    // A message over the bound closes the WebSocket (1009) rather than being handled.
    const first = open[0]!;
    const { sessionId } = await first.newSession(tempDir());
    const tooBig = first.prompt(sessionId, "y".repeat(8192));
    await expect(tooBig).rejects.toThrow();
    await first.closed;
    await Promise.all(open.slice(1).map((client) => client.dispose()));

    // Their places are free again once the host has closed their sockets; over HTTP the body bound answers 413. Idle
    // is timed from before the connection's last message (its initialize), so however long the rest takes the
    // timeout cannot have run before it.
    const idleSince = performance.now();
    const second = await waitFor("the sockets to be free again", () => connectHost(host.httpUrl).catch(() => null));
    const response = await fetch(host.httpUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Acp-Connection-Id": "any" },
      body: JSON.stringify({ pad: "z".repeat(8192) }),
    });
    expect(response.status).toBe(413);
    // Idle: nothing sent for --idle-timeout-ms and no prompt in flight.
    await second.closed;
    expect(performance.now() - idleSince).toBeGreaterThanOrEqual(3900);
    expect(host.stderr()).toContain("idle connection closed");
  });
});

describe("SIGTERM", () => {
  it("settles prompts in flight as cancelled over both transports, closes connections and exits 0", async () => {
    const host = await startRemoteHost();
    const clients = [await connectHost(host.wsUrl), await connectHost(host.httpUrl)];
    const turns = [];
    for (const client of clients) {
      const { sessionId } = await client.newSession(tempDir());
      turns.push(client.prompt(sessionId, script({ sleep_ms: 60_000 })));
    }
    await waitFor("both turns to start", async () => (await clients[0]!.stats()).sessions.busy === 2);
    const exited = host.stop("SIGTERM");
    const results = await Promise.all(turns);
    expect(results.map((result) => result.stopReason)).toEqual(["cancelled", "cancelled"]);
    expect(await exited).toBe(0);
    await Promise.all(clients.map((client) => client.closed));
  });

  it("/healthz answers 503 while the host tears down", async () => {
    const host = await startRemoteHost(["--default-mode", "auto"]);
    const health = host.httpUrl.replace(/\/acp$/, "/healthz");
    const client = await connectHost(host.wsUrl);
    const { sessionId } = await client.newSession(tempDir());
    // A command that ignores SIGTERM holds teardown for the spawner's 1 s until SIGKILL.
    const turn = client.prompt(sessionId, script(bash("trap '' TERM; sleep 30")));
    await waitFor("the command to start", () => processesRunning(host.child.pid!, "sleep 30").length > 0);
    expect((await fetch(health)).status).toBe(200);
    const exited = host.stop("SIGTERM");
    const statuses = new Set<number>();
    for (;;) {
      const status = await fetch(health).then(
        (response) => response.status,
        () => null,
      );
      if (status === null) break;
      statuses.add(status);
    }
    expect(statuses).toContain(503);
    expect((await turn).stopReason).toBe("cancelled");
    expect(await exited).toBe(0);
  });
});
