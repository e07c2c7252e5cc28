// The host's stdout holds a loop turn's frames for one write, but not for a long turn's whole length: a frame written
// more than a millisecond after the first one held sends what waits at once (a burst's answers leave as they come).
import { Writable } from "node:stream";
import { setImmediate as nextTurn } from "node:timers/promises";
import { expect, it } from "vitest";
import { framesPerTick } from "../../src/host/connection/stdio-stream.js";

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
