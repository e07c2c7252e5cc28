// The ACP stream on stdio, with three things the SDK's connection does not give: stdin's end is reported to the host
// instead of closing the connection (stdout stays open, so every prompt still in flight can be answered), the host
// can wait until every frame handed to stdout has been written, and the frames of one turn of the event loop go out
// in one write.
import { Readable, type Writable } from "node:stream";
import { ndJsonStream, type AnyMessage, type Stream } from "@agentclientprotocol/sdk/unstable";

export interface StdioStream {
  stream: Stream;
  /** Resolves when stdin ends (the client closed it, or its pipe broke). */
  inputEnded: Promise<void>;
  /** Resolves once every frame written so far has left this process (or stdout failed). */
  drained(): Promise<void>;
  /** Writes what waits for the end of this turn of the event loop now: the process is about to exit. */
  flushNow(): void;
}

/** Milliseconds, from any origin: how long stdout has held a frame. */
export type Clock = () => number;

const monotonic: Clock = () => performance.now();

export function stdioStream(
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
  clock: Clock = monotonic,
): StdioStream {
  const frames = framesPerTick(output as Writable, clock);
  const inner = ndJsonStream(frames.sink, Readable.toWeb(input as Readable) as ReadableStream<Uint8Array>);
  let ended: () => void = () => {};
  const inputEnded = new Promise<void>((resolve) => (ended = resolve));
  const reader = inner.readable.getReader();
  const readable = new ReadableStream<AnyMessage>({
    async pull(controller) {
      const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (next.done) ended();
      else controller.enqueue(next.value);
      // After the end the stream stays open and silent: the connection lives on until the host has answered.
    },
  });
  const writer = inner.writable.getWriter();
  let lastWrite: Promise<void> = Promise.resolve();
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      const written = writer.write(serializable(message));
      lastWrite = written.catch(() => {});
      return written;
    },
  });
  const drained = async () => {
    await lastWrite;
    await new Promise<void>((resolve) => output.write("", () => resolve()));
  };
  return { stream: { readable, writable }, inputEnded, drained, flushNow: frames.uncork };
}

/**
 * An error frame whose data cannot be serialized (the SDK echoes an invalid request as the data of its -32600, and
 * a request nested deep enough overflows JSON.stringify) without that data: a write that throws would error the
 * output stream and close the connection for every session.
 */
function serializable(message: AnyMessage): AnyMessage {
  if (!("error" in message) || message.error.data === undefined) return message;
  try {
    JSON.stringify(message.error.data);
    return message;
  } catch {
    return {
      ...message,
      error: { ...message.error, data: { omitted: "the request could not be echoed (nested too deeply)" } },
    };
  }
}

/**
 * How long a frame may wait for the end of its turn of the event loop. A turn can be long: a burst's callbacks run
 * back to back in one (a hundred session/new completing together), and the first answers would wait for the last.
 */
const MAX_HOLD_MS = 1;

/**
 * stdout as the SDK's byte sink, the frames of one turn of the event loop going out in one write: each frame on its
 * own cost a system call and a wake of the client.
 */
export function framesPerTick(
  output: Writable,
  clock: Clock = monotonic,
): { sink: WritableStream<Uint8Array>; uncork: () => void } {
  let corked = false;
  let corkedAtMs = 0;
  const uncork = () => {
    if (!corked) return;
    corked = false;
    output.uncork();
  };
  const sink = new WritableStream<Uint8Array>({
    start(controller) {
      output.once("error", (error) => controller.error(error));
    },
    write(frame) {
      if (output.destroyed) throw new Error("stdout is closed");
      if (!corked) {
        corked = true;
        corkedAtMs = clock();
        output.cork();
        setImmediate(uncork);
      }
      const room = output.write(frame);
      if (clock() - corkedAtMs > MAX_HOLD_MS) uncork();
      // Resolved at once, not on the write's callback: the SDK sends its next frame only once this one resolves.
      if (room) return;
      return new Promise<void>((resolve, reject) => {
        const settle = (error?: Error) => {
          output.off("drain", settle).off("error", settle).off("close", closed);
          if (error) reject(error);
          else resolve();
        };
        const closed = () => settle(new Error("stdout closed before its frames were written"));
        output.on("drain", settle).on("error", settle).on("close", closed);
      });
    },
  });
  return { sink, uncork };
}
