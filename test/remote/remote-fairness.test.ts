// One connection's request flood does not hold the host from the others: the flooder's requests are read and
// answered a bounded number at a time, and another tenant's echoes are answered between them, while the flood is
// still being answered, not after it. The echo's latency is printed (a figure for the bench, not a threshold here).
import { expect, it } from "vitest";
import { tempDir } from "../support/host.js";
import { startRemoteHost, tokensFile } from "../support/remote-host.js";
import { frame, openStalledClient } from "../support/stalled-client.js";
import { waitFor } from "../support/tools.js";
import { connectHost } from "../support/checked-host.js";

const percentile = (values: number[], p: number) =>
  [...values].sort((x, y) => x - y)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

it(
  "another tenant's echoes are answered between a flooder's requests, and every flooded request is answered",
  { timeout: 180_000 },
  async () => {
    const tokens = tokensFile(["flood", "echo"]);
    const host = await startRemoteHost(["--tokens-file", tokens.path]);
    const other = await connectHost(host.wsUrl, { token: tokens.tokens.echo! });
    try {
      const { sessionId } = await other.newSession(tempDir());
      const echo = async () => {
        const started = performance.now();
        expect((await other.prompt(sessionId, "ping")).text).toBe("You said: ping");
        return performance.now() - started;
      };
      for (let i = 0; i < 10; i++) await echo();
      const quiet: number[] = [];
      for (let i = 0; i < 30; i++) quiet.push(await echo());

      // 5,000 requests for a method no one has, written in one go: each is answered with an error.
      const flood = 5000;
      const flooder = await openStalledClient(host.wsUrl, { Authorization: `Bearer ${tokens.tokens.flood}` });
      await flooder.call(0, "initialize", { protocolVersion: 1, clientCapabilities: {} });
      const frames = Array.from({ length: flood }, (_, i) =>
        frame(JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "x" })),
      );
      const before = flooder.responsesRead();
      flooder.socket.write(Buffer.concat(frames));
      const floodAnswered = () => flooder.responsesRead() - before >= flood;

      // Echo after echo while the flood is being answered. Before, a flood was read and answered in one go: an echo
      // sent meanwhile waited for all of it.
      const during: number[] = [];
      while (!floodAnswered()) during.push(await echo());
      await waitFor("every flooded request to be answered", floodAnswered, 60_000);
      expect(during.length).toBeGreaterThanOrEqual(5);
      console.log(
        `other tenant's echo during a ${flood}-request flood: p50 ${percentile(during, 0.5).toFixed(1)} ms, p99 ${percentile(during, 0.99).toFixed(1)} ms over ${during.length} echoes (quiet: p50 ${percentile(quiet, 0.5).toFixed(1)} ms, p99 ${percentile(quiet, 0.99).toFixed(1)} ms)`,
      );

      // The flooder was slowed, never cut off.
      expect(flooder.socket.destroyed).toBe(false);
      expect(await flooder.call(flood + 1, "x", {})).toBeUndefined();
      flooder.socket.destroy();
    } finally {
      await other.dispose();
      expect(await host.stop()).toBe(0);
    }
  },
);
