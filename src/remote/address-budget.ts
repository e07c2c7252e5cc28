// How many of an address's sockets the host closes at once on its own initiative (evicted at the cap, or answered
// with a refusal before they authenticated): a bucket per address that holds `perSecond` and refills continuously at
// that rate. Refilled by the moment rather than emptied each second, so a flood that spends it as fast as it refills
// is let through one socket at a time, not in a burst at the start of every second.
export class AddressBudget {
  readonly #perSecond: number;
  /** By address: what is left, as of when. Addresses with a whole budget are not kept. */
  readonly #left = new Map<string, { tokens: number; at: number }>();

  constructor(perSecond: number) {
    this.#perSecond = perSecond;
  }

  /** Addresses whose budget is not whole. */
  get spending(): number {
    return this.#left.size;
  }

  /** Spends one of the address's; false: none is left. */
  take(address: string, now: number = performance.now()): boolean {
    const tokens = this.#refilled(address, now);
    if (tokens < 1) {
      this.#left.set(address, { tokens, at: now });
      return false;
    }
    this.#left.set(address, { tokens: tokens - 1, at: now });
    return true;
  }

  /** Forgets the addresses whose budget is whole again. */
  prune(now: number = performance.now()): void {
    for (const address of this.#left.keys())
      if (this.#refilled(address, now) >= this.#perSecond) this.#left.delete(address);
  }

  #refilled(address: string, now: number): number {
    const left = this.#left.get(address);
    if (!left) return this.#perSecond;
    return Math.min(this.#perSecond, left.tokens + ((now - left.at) * this.#perSecond) / 1000);
  }
}
