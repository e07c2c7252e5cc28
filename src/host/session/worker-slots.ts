// The budget of live session workers (--max-live-workers). A session takes a slot before it leases a worker and
// gives it back when that worker ends. With no slot free, the least recently used idle session is hibernated
// to make room; with none idle either, the taker waits, and the next session to go idle hands its slot over.
// So a lease never queues in piscina behind workers that nobody is using.

/** A session as the budget sees it. */
export interface SlotHolder {
  /** When it was last used, while it holds a live worker that nothing is using; null otherwise. */
  readonly idleSince: number | null;
  /** Releases its worker (if it is still idle); resolves once the worker has ended. */
  hibernate(reason: string): Promise<void>;
}

export class Slot {
  readonly holder: SlotHolder;
  readonly #onRelease: (slot: Slot) => void;

  constructor(holder: SlotHolder, onRelease: (slot: Slot) => void) {
    this.holder = holder;
    this.#onRelease = onRelease;
  }

  /** Idempotent. */
  release(): void {
    this.#onRelease(this);
  }
}

/** The host's memory budget (--max-rss-mb): a new worker is taken only while the host stays below it. */
export interface MemoryBudget {
  limitBytes: number;
  /** What one more worker is expected to add. */
  perWorkerBytes: number;
  /** The host's RSS; fresh: read now, not a reading shared by a burst of leases (after a hibernation). */
  rssBytes(fresh?: boolean): number;
  /** The error for a worker that cannot be had within the budget. */
  exceeded(rssBytes: number): Error;
}

export class WorkerSlots {
  readonly max: number;
  readonly #taken = new Set<Slot>();
  readonly #waiting: Array<{ holder: SlotHolder; grant(slot: Slot): void }> = [];
  readonly #memory: MemoryBudget | null;

  constructor(max: number, memory: MemoryBudget | null = null) {
    this.max = max;
    this.#memory = memory;
  }

  get live(): number {
    return this.#taken.size;
  }

  /** Whether a slot can be taken right now without hibernating anyone. */
  get free(): boolean {
    return this.#taken.size < this.max && this.#waiting.length === 0;
  }

  async acquire(holder: SlotHolder): Promise<Slot> {
    for (;;) {
      await this.fitMemory(this.#memory?.perWorkerBytes ?? 0, holder);
      if (this.free) return this.#take(holder);
      const victim = this.#leastRecentlyUsedIdle(holder);
      if (!victim) return new Promise<Slot>((grant) => this.#waiting.push({ holder, grant }));
      // Its slot comes back when its worker has ended: to this taker, or to one that waited longer.
      await victim.hibernate("live workers at --max-live-workers: least recently used idle session");
    }
  }

  /**
   * Until the host's RSS plus extraBytes is within the memory budget, idle sessions hibernate, least recently used
   * first (their workers' memory goes back to the system as their threads end); with none left, a clear refusal.
   */
  async fitMemory(extraBytes: number, except: SlotHolder | null = null): Promise<void> {
    if (!this.#memory) return;
    for (let hibernated = false; ; hibernated = true) {
      const rss = this.#memory.rssBytes(hibernated);
      if (rss + extraBytes <= this.#memory.limitBytes) return;
      const idle = this.#leastRecentlyUsedIdle(except);
      if (!idle) throw this.#memory.exceeded(rss);
      await idle.hibernate("host at --max-rss-mb: least recently used idle session");
    }
  }

  /** A holder has gone idle: if anyone waits for a slot, it gives its own up now. */
  idle(holder: SlotHolder): void {
    if (this.#waiting.length > 0) void holder.hibernate("a session waits for a live worker slot");
  }

  #take(holder: SlotHolder): Slot {
    const slot = new Slot(holder, (released) => this.#release(released));
    this.#taken.add(slot);
    return slot;
  }

  #release(slot: Slot): void {
    if (!this.#taken.delete(slot)) return;
    const next = this.#waiting.shift();
    if (next) next.grant(this.#take(next.holder));
  }

  #leastRecentlyUsedIdle(except: SlotHolder | null): SlotHolder | null {
    let best: SlotHolder | null = null;
    let bestSince = Infinity;
    for (const { holder } of this.#taken) {
      const since = holder.idleSince;
      if (holder !== except && since !== null && since < bestSince) {
        best = holder;
        bestSince = since;
      }
    }
    return best;
  }
}
