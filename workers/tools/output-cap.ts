// Bounded tool output. What goes back to the model is capped (head and tail kept, a line in between says how many
// bytes were dropped and where the full output is); what streams to the client is only the new output, up to a
// limit per call, then one notice.

/** Keeps at most `cap` bytes of a stream: the first half and the last half. */
export class CappedOutput {
  readonly #half: number;
  readonly #cap: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;

  constructor(capBytes: number) {
    this.#cap = capBytes;
    this.#half = Math.floor(capBytes / 2);
  }

  get totalBytes(): number {
    return this.#total;
  }

  push(text: string): void {
    let bytes = Buffer.from(text);
    this.#total += bytes.length;
    if (this.#headBytes < this.#half) {
      const take = Math.min(this.#half - this.#headBytes, bytes.length);
      this.#head.push(bytes.subarray(0, take));
      this.#headBytes += take;
      bytes = bytes.subarray(take);
    }
    if (bytes.length === 0) return;
    this.#tail.push(bytes);
    this.#tailBytes += bytes.length;
    while (this.#tail.length > 1 && this.#tailBytes - this.#tail[0]!.length >= this.#half)
      this.#tailBytes -= this.#tail.shift()!.length;
  }

  /** The output's end when what came between was never pushed: `tail` is its last part, `totalBytes` all of it. */
  endWith(tail: string, totalBytes: number): void {
    const bytes = Buffer.from(tail);
    this.#tail = [bytes];
    this.#tailBytes = bytes.length;
    this.#total = Math.max(totalBytes, this.#headBytes + bytes.length);
  }

  /** The text for the model; `where` says where the full output is, for the dropped-bytes line. */
  render(where: string): string {
    const head = Buffer.concat(this.#head);
    const tail = Buffer.concat(this.#tail);
    if (this.#total <= this.#cap) return Buffer.concat([head, tail]).toString("utf8");
    const keptHead = utf8Prefix(head);
    const keptTail = utf8Suffix(tail.subarray(Math.max(0, tail.length - this.#half)));
    const dropped = this.#total - keptHead.length - keptTail.length;
    return `${keptHead.toString("utf8")}\n[… ${dropped} bytes of output dropped here (${this.#total} bytes in all); ${where} …]\n${keptTail.toString("utf8")}`;
  }
}

/** Forwards output deltas to the client until `limitBytes` have gone, then says once that the rest is not streamed. */
export class DeltaStream {
  readonly #emit: (delta: string) => void;
  readonly #limit: number;
  #sent = 0;
  #stopped = false;

  constructor(emit: (delta: string) => void, limitBytes: number) {
    this.#emit = emit;
    this.#limit = limitBytes;
  }

  push(text: string, where: () => string): void {
    if (this.#stopped) return;
    const bytes = Buffer.byteLength(text);
    if (this.#sent + bytes <= this.#limit) {
      this.#sent += bytes;
      this.#emit(text);
      return;
    }
    this.#stopped = true;
    this.#emit(`\n[… output continues; it is no longer streamed for this call; ${where()} …]\n`);
  }
}

/** Drops an incomplete UTF-8 sequence at the end. */
function utf8Prefix(buffer: Buffer): Buffer {
  let end = buffer.length;
  let back = 0;
  while (end - back - 1 >= 0 && back < 3 && (buffer[end - back - 1]! & 0xc0) === 0x80) back++;
  const lead = buffer[end - back - 1];
  if (lead === undefined) return buffer.subarray(0, end - back);
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (need > back + 1) end = end - back - 1;
  return buffer.subarray(0, end);
}

/** Drops continuation bytes at the start (the rest of a character cut off before). */
function utf8Suffix(buffer: Buffer): Buffer {
  let start = 0;
  while (start < buffer.length && start < 3 && (buffer[start]! & 0xc0) === 0x80) start++;
  return buffer.subarray(start);
}
