// WorkerLease.call: a call's answer is let go once it is answered, while the worker lives on (a race against the
// never-settling `exited` kept every answer, every replay page, until the worker ended); a call still in flight when
// the worker dies is rejected with WorkerGone at once.
import { MessageChannel } from "node:worker_threads";
import v8 from "node:v8";
import vm from "node:vm";
import { expect, it } from "vitest";
import { WorkerGone, WorkerLease } from "../../src/pool/worker-lease.js";
import { OutputWindow } from "../../src/protocol/output-window.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

function lease(run: Promise<never>, abort = new AbortController()): WorkerLease {
  const commands = new MessageChannel();
  const events = new MessageChannel();
  return new WorkerLease(commands.port1, events.port1, run, abort, new OutputWindow(new SharedArrayBuffer(16)));
}

async function calls(live: WorkerLease, count: number): Promise<Array<WeakRef<object>>> {
  const answers: Array<WeakRef<object>> = [];
  for (let i = 0; i < count; i++) answers.push(new WeakRef(await live.call(async () => ({ page: "x".repeat(1024) }))));
  return answers;
}

it("lets each answer go once it is answered, while the worker lives", async () => {
  const live = lease(new Promise<never>(() => {}));
  // Called in a function of their own, so that no variable of this test holds an answer.
  const answers = await calls(live, 20);
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  expect(answers.filter((answer) => answer.deref() !== undefined)).toHaveLength(0);
  expect(live.alive).toBe(true);
});

it("rejects a call in flight with WorkerGone as soon as the worker dies", async () => {
  let die!: (error: Error) => void;
  const abort = new AbortController();
  const dying = lease(new Promise<never>((_resolve, reject) => (die = reject)), abort);
  const pending = dying.call(() => new Promise<never>(() => {}));
  abort.abort();
  die(new Error("terminated"));
  await expect(pending).rejects.toBeInstanceOf(WorkerGone);
  await expect(pending).rejects.toThrow("session worker terminated: terminated by the host");
});
