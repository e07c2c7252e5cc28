// What of one model response the client sees, and when. By default nothing is shown until the message is committed
// (no retractions). With --stream-chunks message and thought text go out as they arrive; at commit only what was not
// streamed goes out (a model that does not stream, like the scripted one, shows its message then). Nothing is sent
// once the turn is cancelled: the client keeps the partial text it already has. A client that is behind makes the
// model wait (its stream is not read, the rest of a commit not sent) until it has room again.
import type { EventSink } from "../event-sink.js";
import type { ModelRequest, ModelResponse } from "../models/model.js";

export class ChunkRelay {
  readonly #events: EventSink;
  readonly #turnId: string;
  readonly #signal: AbortSignal;
  readonly #stream: boolean;
  #text = "";
  #thought = "";

  constructor(events: EventSink, turnId: string, signal: AbortSignal, stream: boolean) {
    this.#events = events;
    this.#turnId = turnId;
    this.#signal = signal;
    this.#stream = stream;
  }

  /** The streaming callbacks of the model request (none unless streaming). */
  callbacks(): Pick<ModelRequest, "onDelta" | "onThought"> {
    if (!this.#stream) return {};
    return {
      onThought: (text) => {
        if (this.#signal.aborted) return;
        this.#thought += text;
        this.#events.postUnnumbered({ type: "thought", turnId: this.#turnId, text });
        if (this.#events.behind) return this.#events.room(this.#signal);
      },
      onDelta: (text) => {
        if (this.#signal.aborted) return;
        this.#text += text;
        this.#events.postUnnumbered({ type: "assistant_message", turnId: this.#turnId, blocks: [text] });
        if (this.#events.behind) return this.#events.room(this.#signal);
      },
    };
  }

  /** Sends the committed response's thought and message, less what was streamed of them. */
  async commit(response: Pick<ModelResponse, "blocks" | "thought">): Promise<void> {
    const thought = unsent(response.thought ?? "", this.#thought);
    if (thought.length > 0)
      await this.#events.send({ type: "thought", turnId: this.#turnId, text: thought }, this.#signal);
    const whole = response.blocks.join("");
    const blocks = this.#text.length === 0 ? response.blocks : [unsent(whole, this.#text)];
    if (blocks.some((block) => block.length > 0))
      await this.#events.send({ type: "assistant_message", turnId: this.#turnId, blocks }, this.#signal);
  }
}

/** The part of `whole` after what was already sent; nothing when what was sent diverged from it (no retractions). */
function unsent(whole: string, sent: string): string {
  return whole.startsWith(sent) ? whole.slice(sent.length) : "";
}
