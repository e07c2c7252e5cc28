// A client that reads none of a large answer: the host holds no more of it than --max-buffered-bytes plus a small
// constant (read from its own _host/stats), its session's turn waits instead, another tenant's echoes are answered
// throughout, and once the client reads, the whole answer arrives and the turn ends.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { type HostClient } from "../../src/client/index.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, tokensFile } from "../support/remote-host.js";
import { openStalledClient } from "../support/stalled-client.js";
import { waitFor, fileSaidTimes } from "../support/tools.js";
import { connectHost } from "../support/checked-host.js";

const MiB = 2 ** 20;
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

it(
  "a client that stops reading holds the host to --max-buffered-bytes: its turn waits until it reads",
  { timeout: 240_000 },
  async () => {
    const maxBuffered = MiB;
    const tokens = tokensFile(["slow", "other", "ops"], ["ops"]);
    const host = await startRemoteHost([
      "--tokens-file",
      tokens.path,
      "--max-buffered-bytes",
      String(maxBuffered),
      "--max-message-bytes",
      String(64 * 1024),
      // Long enough that the stalled client is never disconnected here: its turn must wait, not be dropped.
      "--max-output-stall-ms",
      "600000",
      "--output-cap-bytes",
      String(256 * 1024),
      "--default-mode",
      "auto",
    ]);
    const ops = await connectHost(host.wsUrl, { token: tokens.tokens.ops! });
    const other = await connectHost(host.wsUrl, { token: tokens.tokens.other! });
    try {
      const { sessionId: echo } = await other.newSession(tempDir());
      const latencies: number[] = [];
      const ping = async () => {
        const started = performance.now();
        expect((await other.prompt(echo, "ping")).text).toBe("You said: ping");
        latencies.push(performance.now() - started);
      };
      for (let i = 0; i < 10; i++) await ping();
      const heldBefore = await held(ops);

      // 30 MB of answer: a 200 KB file said back 150 times, to a client that reads none of it.
      const cwd = tempDir();
      writeFileSync(join(cwd, "big.txt"), "x".repeat(200 * 1024));
      const slow = await openStalledClient(host.wsUrl, { Authorization: `Bearer ${tokens.tokens.slow}` });
      await slow.call(0, "initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = (await slow.call(1, "session/new", { cwd, mcpServers: [] })) as { sessionId: string };
      slow.stopReading();
      slow.sendPrompt(2, sessionId, fileSaidTimes("big.txt", 150));
      const answered = slow.response(2);

      // Its worker stops at its next event once the connection holds its buffer and the session its window. (Without
      // the window, the turn ran to its end and the main thread held what the client had not read.)
      const waits = new RegExp(`"sessionId":"${sessionId}".*session output waits`);
      await waitFor("the slow turn to start", async () => (await ops.stats()).sessions.busy === 1);
      await waitFor(
        "the slow turn to wait for its client (or to end)",
        async () => waits.test(host.stderr()) || (await ops.stats()).sessions.busy === 0,
        60_000,
      );
      // What the host holds stays through every sample; its garbage comes and goes: the least of the samples is at
      // least what it holds.
      const samples: number[] = [];
      for (let i = 0; i < 20; i++) {
        await ping();
        samples.push((await held(ops)) - heldBefore);
      }
      const least = Math.min(...samples);
      console.log(
        `main heap + external over its value before, while the client does not read: ${(least / MiB).toFixed(1)} to ${(Math.max(...samples) / MiB).toFixed(1)} MiB`,
      );
      // The connection's buffer, the session's 1 MiB window and one event: far from the 30 MB (the main thread held
      // over 30 MB of it here before the window).
      expect(least).toBeLessThan(maxBuffered + 12 * MiB);
      expect(waits.test(host.stderr())).toBe(true);
      expect((await ops.stats()).sessions.busy).toBe(1);

      // Reading again: the turn goes on and the client gets the whole answer.
      slow.resumeReading();
      expect((await answered).result).toEqual({ stopReason: "end_turn" });
      expect(slow.agentText()).toBe(150 * 200 * 1024);
      await ping();
      console.log(`other tenant's echo p50 ${median(latencies).toFixed(1)} ms over ${latencies.length} echoes`);
    } finally {
      await ops.dispose();
      await other.dispose();
      expect(await host.stop()).toBe(0);
    }
  },
);

/** What the host's main thread holds: its V8 heap and the memory outside it (Buffers). */
async function held(ops: HostClient): Promise<number> {
  const { memory } = await ops.stats();
  return memory.heapUsedBytes + memory.externalBytes;
}
