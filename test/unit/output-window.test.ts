// The output window both threads share: past windowBytes held, room() waits until releases bring it back under (or
// the signal aborts); under it, room() answers at once.
import { expect, it } from "vitest";
import { OutputWindow, outputWindowBuffer } from "../../src/protocol/output-window.js";

const turn = () => new Promise((resolve) => setImmediate(resolve));

it("waits past the window until enough is released, and not once aborted", async () => {
  const buffer = outputWindowBuffer();
  const worker = new OutputWindow(buffer);
  const main = new OutputWindow(buffer);
  await worker.room(1000);
  worker.spend(600);
  worker.spend(600);
  let roomy = false;
  const waiting = worker.room(1000).then(() => (roomy = true));
  await turn();
  expect(roomy).toBe(false);
  main.release(100);
  await turn();
  expect(roomy).toBe(false);
  main.release(600);
  await waiting;
  expect(worker.held).toBe(500);

  worker.spend(2000);
  const abort = new AbortController();
  const cancelled = worker.room(1000, abort.signal);
  abort.abort();
  await cancelled;
  expect(worker.held).toBe(2500);
});
