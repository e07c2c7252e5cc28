// The end of a foreground command's output once no more of it is sent as it comes: its last characters, bounded, so
// a command that prints gigabytes costs the spawner and the worker what the model and the client will see of it.
export class OutputTail {
  readonly #limit: number;
  #chunks: string[] = [];
  #chars = 0;

  constructor(limitChars: number) {
    this.#limit = limitChars;
  }

  push(text: string): void {
    if (this.#limit === 0) return;
    this.#chunks.push(text);
    this.#chars += text.length;
    while (this.#chunks.length > 1 && this.#chars - this.#chunks[0]!.length >= this.#limit) this.#chars -= this.#chunks.shift()!.length;
  }

  text(): string {
    const all = this.#chunks.join("");
    return all.length > this.#limit ? all.slice(all.length - this.#limit) : all;
  }
}
