// What a remote client is never told: where the host keeps its state (the state dir, the tokens file, the runtime
// dir) and how it reaches its store (a PostgreSQL URL, in any of its spellings). An error answered to a connection of
// the listener has each of them replaced by a name for it; the host's log keeps the error as it was. Only answers
// that carry an error are looked at: a notification or a result passes as it is, unread.
import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";

export interface Secret {
  /** The text as it may appear in an error (a path, a URL). */
  text: string;
  /** What a client is shown instead. */
  shownAs: string;
}

export class ErrorRedaction {
  /** Longest first: a path inside another is replaced before the one that holds it. */
  readonly #secrets: readonly Secret[];
  readonly #onRedacted: (original: unknown) => void;

  constructor(secrets: readonly Secret[], onRedacted: (original: unknown) => void) {
    this.#secrets = secrets.filter((secret) => secret.text.length > 1).sort((a, b) => b.text.length - a.text.length);
    this.#onRedacted = onRedacted;
  }

  /** The message as a client may see it: itself, or a copy whose error names none of the secrets. */
  apply(message: AnyMessage): AnyMessage {
    if (!("error" in message) || message.error === undefined) return message;
    const text = JSON.stringify(message.error);
    let shown = text;
    for (const { text: secret, shownAs } of this.#secrets)
      shown = shown.replaceAll(JSON.stringify(secret).slice(1, -1), shownAs);
    if (shown === text) return message;
    this.#onRedacted(message.error);
    return { ...message, error: JSON.parse(shown) as typeof message.error };
  }
}
