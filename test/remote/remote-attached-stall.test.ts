// --max-output-stall-ms applies to an attached client too: the updates fanned out to it are written to its WebSocket
// directly (not through the SDK, whose limit it was), and a client that reads none of them for that long is
// disconnected, however often it sends messages of its own (a message is no read).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { connectHost } from "../support/checked-host.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, type RemoteHost } from "../support/remote-host.js";
import { openStalledClient } from "../support/stalled-client.js";
import { fileSaidTimes, waitFor } from "../support/tools.js";

const STALL_MS = 1000;
let host: RemoteHost;
let owner: HostClient;

beforeAll(async () => {
  // A queue far larger than the output: the attachment is never detached as too slow, so only the stall limit ends it.
  host = await startRemoteHost([
    "--max-output-stall-ms",
    String(STALL_MS),
    "--max-attach-queue-bytes",
    String(256 * 1024 * 1024),
  ]);
  owner = await connectHost(host.wsUrl, { permission: "allow" });
});
afterAll(async () => {
  await owner.dispose();
  expect(await host.stop()).toBe(0);
});

it("disconnects an attached client that reads nothing for --max-output-stall-ms, though it keeps sending", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "big.txt"), "y".repeat(32 * 1024));
  const { sessionId } = await owner.newSession(cwd, { mode: "auto" });
  const slow = await openStalledClient(host.wsUrl);
  await slow.call(0, "initialize", { protocolVersion: 1, clientCapabilities: {} });
  await slow.call(1, "session/attach", { sessionId, role: "observer" });
  slow.stopReading();
  // Messages of its own, all along: an observer's cancel changes nothing, and is no read of what it was sent.
  const chatter = setInterval(
    () => slow.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } }),
    STALL_MS / 4,
  );
  try {
    const result = await owner.prompt(sessionId, fileSaidTimes("big.txt", 600));
    expect(result.stopReason).toBe("end_turn");
    await waitFor(
      "the host to close the stalled connection",
      () => /its client read none of what the host wrote it for --max-output-stall-ms/.test(host.stderr()),
      60_000,
    );
  } finally {
    clearInterval(chatter);
  }
  slow.resumeReading();
  await slow.closed;
  // The owner's connection, which reads, is untouched.
  expect((await owner.prompt(sessionId, "still here")).text).toBe("You said: still here");
}, 180_000);
