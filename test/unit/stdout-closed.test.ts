// A frame the host writes to a stdout that closes while the frame waits for room (the client went away) fails the
// write instead of holding the host's output, and every later frame with it, forever.
import { PassThrough, Writable } from "node:stream";
import { expect, it } from "vitest";
import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";
import { stdioStream } from "../../src/host/connection/stdio-stream.js";

it("fails a waiting write once stdout closes", async () => {
  // A pipe nobody reads: its first write never completes, so the next frame waits for room.
  const output = new Writable({ highWaterMark: 1, write: () => {} });
  const writer = stdioStream(new PassThrough(), output).stream.writable.getWriter();
  const frame = (id: number): AnyMessage => ({ jsonrpc: "2.0", id, result: null });
  const waiting = writer.write(frame(1));
  output.destroy();
  await expect(waiting).rejects.toThrow();
  await expect(writer.write(frame(2))).rejects.toThrow();
});
