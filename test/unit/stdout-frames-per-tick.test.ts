// The host's stdout: the ACP frames written in one turn of the event loop leave in one write (one system call and
// one wake of the client), in order; frames written later leave in a write of their own.
import { PassThrough, Writable } from "node:stream";
import { expect, it } from "vitest";
import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";
import { stdioStream } from "../../src/host/connection/stdio-stream.js";

it("writes one turn's frames in one write", async () => {
  const writes: string[] = [];
  let wrote: () => void = () => {};
  const written = () => new Promise<void>((resolve) => (wrote = resolve));
  const record = (text: string, done: () => void) => {
    writes.push(text);
    done();
    wrote();
  };
  const output = new Writable({
    writev: (chunks, done) => record(chunks.map(({ chunk }) => String(chunk)).join(""), done),
    write: (chunk, _encoding, done) => record(String(chunk), done),
  });
  // A clock that stands still: the frames are never held long enough to leave before the turn ends.
  const writer = stdioStream(new PassThrough(), output, () => 0).stream.writable.getWriter();
  const frame = (id: number): AnyMessage => ({ jsonrpc: "2.0", id, result: null });
  let next = written();
  void writer.write(frame(1));
  void writer.write(frame(2));
  void writer.write(frame(3));
  await next;
  next = written();
  void writer.write(frame(4));
  await next;
  const line = (id: number) => `${JSON.stringify(frame(id))}\n`;
  expect(writes).toEqual([line(1) + line(2) + line(3), line(4)]);
});
