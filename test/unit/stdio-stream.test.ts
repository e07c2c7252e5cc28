// The host's stdout (src/host/connection/stdio-stream.ts): frames batched per loop turn, held only briefly, and a
// closed stdout failing the write that waits.
import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";
import { framesPerTick, stdioStream } from "../../src/host/connection/stdio-stream.js";
import { setImmediate as nextTurn } from "node:timers/promises";

// The host's stdout: the ACP frames written in one turn of the event loop leave in one write (one system call and
// one wake of the client), in order; frames written later leave in a write of their own.
describe("one write per loop turn", () => {
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
});

// The host's stdout holds a loop turn's frames for one write, but not for a long turn's whole length: a frame written
// more than a millisecond after the first one held sends what waits at once (a burst's answers leave as they come).
describe("frames held only briefly", () => {
  it("sends the frames held so far when the turn has held them past a millisecond", async () => {
    const writes: string[] = [];
    const output = new Writable({
      writev: (chunks, done) => {
        writes.push(chunks.map(({ chunk }) => String(chunk)).join(""));
        done();
      },
      write: (chunk, _encoding, done) => {
        writes.push(String(chunk));
        done();
      },
    });
    let nowMs = 0;
    const writer = framesPerTick(output, () => nowMs).sink.getWriter();
    const bytes = (text: string) => new TextEncoder().encode(text);

    await writer.write(bytes("a\n"));
    await writer.write(bytes("b\n"));
    expect(writes).toEqual([]);
    nowMs = 1.5;
    await writer.write(bytes("c\n"));
    expect(writes).toEqual(["a\nb\nc\n"]);

    await writer.write(bytes("d\n"));
    expect(writes).toEqual(["a\nb\nc\n"]);
    await nextTurn();
    expect(writes).toEqual(["a\nb\nc\n", "d\n"]);
  });
});

// A frame the host writes to a stdout that closes while the frame waits for room (the client went away) fails the
// write instead of holding the host's output, and every later frame with it, forever.
describe("a stdout that closes", () => {
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
});
