// How much of a session's output may be between its worker and its client at once: its output window. The worker
// counts what it posts for the client, the main thread counts what it has handed to the connection (or dropped: no
// connection), both in one Int32 shared by the two threads. A worker whose count is past its window waits at its next
// event until the main thread has handed enough on; while the count is under it, posting costs one atomic add and
// nothing crosses between the threads. A connection whose client does not read stops taking output, so its
// sessions' workers stop producing: what the host holds for it is the connection's own buffer plus one window (and
// the event that passed it) per session.
import type { WorkerEvent } from "./worker-events.js";

/** Slots of the shared Int32Array. */
const HELD = 0;
/** Set by a worker about to wait; the main thread clears it and wakes the worker on its next release. */
const WAITING = 1;

/** What a message costs beyond its text (its JSON frame, the update's fields), so that empty events count too. */
const EVENT_OVERHEAD = 256;

/** The shared memory of one worker's window (made with its task; one worker serves one session for its life). */
export function outputWindowBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
}

/**
 * What an event costs on its way to the client, in characters of its text (0: it sends nothing to the client, or
 * waits for the client's answer itself). Both threads count with this, the worker when it posts, the main thread
 * when it is done with the event, so the two counts agree.
 */
export function outputBytes(event: WorkerEvent): number {
  switch (event.type) {
    case "assistant_message":
      return EVENT_OVERHEAD + event.blocks.reduce((sum, block) => sum + block.length, 0);
    case "thought":
    case "user_message":
      return EVENT_OVERHEAD + event.text.length;
    case "tool_call":
      return EVENT_OVERHEAD + event.title.length + (JSON.stringify(event.rawInput)?.length ?? 0);
    case "tool_call_update":
      // The final result goes out twice: as the update's content and as its rawOutput.
      return EVENT_OVERHEAD + (event.outputDelta?.length ?? 0) + 2 * (event.result?.length ?? 0);
    case "usage":
    case "mcp_status":
      return EVENT_OVERHEAD;
    default:
      return 0;
  }
}

export class OutputWindow {
  readonly #shared: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.#shared = new Int32Array(buffer);
  }

  /** Characters posted and not yet handed to the connection. */
  get held(): number {
    return Atomics.load(this.#shared, HELD);
  }

  /** Worker: an event of this cost was posted. */
  spend(bytes: number): void {
    if (bytes > 0) Atomics.add(this.#shared, HELD, bytes);
  }

  /** Main thread: events of this cost were handed on (or dropped); a worker waiting for room is woken to look. */
  release(bytes: number): void {
    if (bytes <= 0) return;
    Atomics.sub(this.#shared, HELD, bytes);
    if (Atomics.load(this.#shared, WAITING) !== 0 && Atomics.exchange(this.#shared, WAITING, 0) !== 0)
      Atomics.notify(this.#shared, HELD);
  }

  /** Worker: resolves once fewer than windowBytes are held, or the signal aborts. */
  async room(windowBytes: number, signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (signal?.aborted) return;
      Atomics.store(this.#shared, WAITING, 1);
      // Read after the flag is set: a release from now on changes the value waited on, or wakes the wait.
      const held = Atomics.load(this.#shared, HELD);
      if (held < windowBytes) return;
      const wait = Atomics.waitAsync(this.#shared, HELD, held);
      if (!wait.async) continue;
      await untilAborted(wait.value, signal);
    }
  }
}

async function untilAborted(wait: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) {
    await wait;
    return;
  }
  let onAbort: () => void = () => {};
  const abort = new Promise<void>((resolve) => (onAbort = resolve));
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    await Promise.race([wait, abort]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
