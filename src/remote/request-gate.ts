// One remote connection's messages between the SDK's transport and the host's agent app. It bounds the requests the
// connection has in flight (answers the host still owes it, session/prompt apart: a prompt runs as long as its turn,
// and its cancel and permission answers must still be read): at the bound, the next message is not read until an
// answer has gone out, and a WebSocket's socket is paused, so the kernel's buffers push back on a client that sends
// faster than it is answered. Reading resumes in a later turn of the event loop, after the other connections' I/O.
// It also drops responses to requests the host never sent (the SDK would log each one), and hands each answer on as
// the client may see it (`shown`: an error without the host's paths, error-redaction.ts).
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";

/** A source of input that can stop for a while (a WebSocket: ws pauses its socket). */
export interface PausableInput {
  pause(): void;
  resume(): void;
}

export interface RequestGateOptions {
  maxInFlight: number;
  /** Every message from the client (activity, for the idle timeout). */
  onMessage(): void;
  /** A response to no request of the host's: dropped. */
  onStrayResponse(id: unknown): void;
  /** What the client is sent of a message the host writes. */
  shown(message: AnyMessage): AnyMessage;
}

const PROMPT_METHOD = "session/prompt";

export class RequestGate {
  readonly stream: Stream;
  readonly #options: RequestGateOptions;
  /** Answers owed to the client for what it sent, prompts apart. */
  #owed = 0;
  /** Ids of the client's prompts not answered yet (their answers are not counted). */
  readonly #prompts = new Map<string, number>();
  /** Ids of the host's requests to the client not answered yet. */
  readonly #asked = new Set<string>();
  #input: PausableInput | null = null;
  #waiting: (() => void) | null = null;

  constructor(inner: Stream, options: RequestGateOptions) {
    this.#options = options;
    const reader = inner.readable.getReader();
    const writer = inner.writable.getWriter();
    const readable = new ReadableStream<AnyMessage>(
      {
        pull: async (controller) => {
          for (;;) {
            while (this.#owed >= options.maxInFlight) await this.#room();
            const next = await reader.read();
            if (next.done) return controller.close();
            options.onMessage();
            if (this.#admit(next.value)) return controller.enqueue(next.value);
          }
        },
        cancel: (reason) => reader.cancel(reason),
      },
      // Read only when the connection asks for the next message.
      { highWaterMark: 0 },
    );
    const writable = new WritableStream<AnyMessage>({
      write: (message) => {
        this.#sent(message);
        return writer.write(options.shown(message));
      },
      close: () => writer.close(),
      abort: (reason) => writer.abort(reason),
    });
    this.stream = { readable, writable };
  }

  /** The WebSocket under this connection, paused while the bound is reached. */
  attachInput(input: PausableInput): void {
    this.#input = input;
    if (this.#waiting) input.pause();
  }

  /** Whether a message from the client goes on to the app; counts what it will be answered. */
  #admit(message: AnyMessage): boolean {
    const fields = message as Record<string, unknown>;
    if (!("method" in fields)) {
      if (!("id" in fields || "result" in fields || "error" in fields)) this.#owed++;
      else if (!this.#asked.delete(idKey(fields.id))) {
        this.#options.onStrayResponse(fields.id);
        return false;
      }
      return true;
    }
    if (!("id" in fields)) return true;
    if (fields.method === PROMPT_METHOD) {
      const key = idKey(fields.id);
      this.#prompts.set(key, (this.#prompts.get(key) ?? 0) + 1);
    } else this.#owed++;
    return true;
  }

  /** A message to the client: a request of the host's is remembered, an answer settles what it answers. */
  #sent(message: AnyMessage): void {
    const fields = message as Record<string, unknown>;
    if ("method" in fields) {
      if ("id" in fields) this.#asked.add(idKey(fields.id));
      return;
    }
    const key = idKey(fields.id);
    const prompts = this.#prompts.get(key);
    if (prompts !== undefined) {
      if (prompts > 1) this.#prompts.set(key, prompts - 1);
      else this.#prompts.delete(key);
      return;
    }
    if (this.#owed > 0) this.#owed--;
    const waiting = this.#waiting;
    if (waiting && this.#owed < this.#options.maxInFlight) {
      this.#waiting = null;
      // Not now: the connections whose I/O is due go first.
      setImmediate(waiting);
    }
  }

  async #room(): Promise<void> {
    this.#input?.pause();
    await new Promise<void>((resolve) => (this.#waiting = resolve));
    this.#input?.resume();
  }
}

function idKey(id: unknown): string {
  return JSON.stringify(id) ?? "undefined";
}
