// A task's output on its way out: its bytes to the task's output file (all of them, or the first fileLimitBytes),
// decoded text to the sink.
import { createWriteStream, type WriteStream } from "node:fs";
import { StringDecoder } from "node:string_decoder";

export class TaskOutput {
  totalBytes = 0;
  readonly #file: WriteStream;
  readonly #onOutput: (text: string) => void;
  readonly #fileLimitBytes: number;
  #fileError: Error | null = null;

  constructor(outputFile: string, onOutput: (text: string) => void, fileLimitBytes = Number.POSITIVE_INFINITY) {
    this.#file = createWriteStream(outputFile, { flags: "w", mode: 0o600 });
    this.#file.on("error", (error) => (this.#fileError ??= error));
    this.#onOutput = onOutput;
    this.#fileLimitBytes = fileLimitBytes;
  }

  /** A decoder per source: two pipes may each split a character in their own place. */
  decoder(): StringDecoder {
    return new StringDecoder("utf8");
  }

  write(chunk: Buffer, decoder: StringDecoder): void {
    const room = this.#fileLimitBytes - this.totalBytes;
    if (room > 0) this.#file.write(room >= chunk.length ? chunk : chunk.subarray(0, room));
    this.totalBytes += chunk.length;
    this.#emit(decoder.write(chunk));
  }

  endOf(decoder: StringDecoder): void {
    this.#emit(decoder.end());
  }

  /**
   * The output was read up to some point only: it is `bytes` long in all, and `tail` is the text of its end. The
   * caller fills the output file from the whole output, not from what was read.
   */
  skipped(bytes: number, tail: string): void {
    this.totalBytes = Math.max(this.totalBytes, bytes);
    this.#emit(tail);
  }

  /** Closes the output file; resolves with what went wrong writing it, if anything did. */
  close(): Promise<Error | null> {
    return new Promise<Error | null>((resolve) => {
      this.#file.end(() => resolve(this.#fileError));
      this.#file.once("error", () => resolve(this.#fileError));
    });
  }

  #emit(text: string): void {
    if (text.length > 0) this.#onOutput(text);
  }
}
