// Newline-delimited JSON framing for byte streams (the spawner's pipes and socket): one JSON value per line.
import { StringDecoder } from "node:string_decoder";
import type { Readable } from "node:stream";

/** A line longer than this ends the stream with an error instead of growing a buffer without bound. */
const MAX_LINE_CHARS = 16 * 1024 * 1024;

/**
 * Calls onValue with each line parsed as JSON (validation is the caller's), onError once for a line that is not
 * JSON or is too long (reading stops there).
 */
export function readJsonLines(
  stream: Readable,
  onValue: (value: unknown) => void,
  onError: (error: Error) => void,
): void {
  const decoder = new StringDecoder("utf8");
  let buffered = "";
  let failed = false;
  const fail = (error: Error) => {
    if (failed) return;
    failed = true;
    stream.removeListener("data", onData);
    onError(error);
  };
  const onData = (chunk: Buffer | string) => {
    buffered += typeof chunk === "string" ? chunk : decoder.write(chunk);
    let newline: number;
    while (!failed && (newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim().length === 0) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        fail(new Error(`not a JSON line: ${line.slice(0, 120)}`));
        return;
      }
      onValue(value);
    }
    if (buffered.length > MAX_LINE_CHARS) fail(new Error(`line longer than ${MAX_LINE_CHARS} characters`));
  };
  stream.on("data", onData);
}

export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
