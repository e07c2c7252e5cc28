// A memory-reducing garbage collection of the main thread once the host has had no prompt in flight for a moment.
// V8 collects only when JavaScript allocates, so a host that goes quiet after a burst keeps the heap the burst grew:
// the young generation at its largest (two 16 MiB semi-spaces) and old-space garbage not yet marked (after a soak:
// docs/performance.md, "Measured choices in the code"). That is RSS the --max-rss-mb budget counts against new
// workers for as long as the host stays idle.
import { Session } from "node:inspector/promises";
import { getHeapStatistics } from "node:v8";

/** A host that answers a prompt every few seconds would otherwise pay a collection after each. */
const GROWTH_WORTH_COLLECTING_BYTES = 8 * 2 ** 20;

export interface IdleCollector {
  /** A prompt started. */
  busy(): void;
  /** No prompt is in flight any more: collect after the quiet delay unless one starts first. */
  idle(): void;
  /**
   * The host is ending: nothing more is collected. Teardown answers every prompt at once, and a collection a second
   * later took the main thread for a third of a 200-session teardown (docs/performance.md, "Measured choices
   * in the code").
   */
  stop(): void;
  /** True once the quiet delay has passed with no prompt (and the heap was collected if it had grown). */
  readonly settled: boolean;
  /** Collections run so far. */
  readonly count: number;
}

export function idleCollector(
  quietMs: number,
  collect: () => Promise<void> = lowMemoryCollection,
  heapBytes: () => number = reservedHeapBytes,
): IdleCollector {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let settled = true;
  let count = 0;
  let afterLast = 0;
  // Bumped by every prompt start: a collection that a prompt overtook does not mark the host settled.
  let generation = 0;
  const cancel = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  const check = async (mine: number) => {
    timer = null;
    if (heapBytes() - afterLast >= GROWTH_WORTH_COLLECTING_BYTES) {
      await collect();
      count++;
      afterLast = heapBytes();
    }
    if (generation === mine) settled = true;
  };
  return {
    busy() {
      cancel();
      generation++;
      settled = false;
    },
    idle() {
      cancel();
      if (stopped) return;
      timer = setTimeout(() => void check(generation), quietMs);
      timer.unref();
    },
    stop() {
      stopped = true;
      cancel();
    },
    get settled() {
      return settled;
    },
    get count() {
      return count;
    },
  };
}

/**
 * The collection V8 runs on a low-memory notification (what the inspector's HeapProfiler.collectGarbage asks for):
 * unlike a plain full GC it also shrinks the young generation. An in-process inspector session, no port opened; a
 * Node built without the inspector gets no collection.
 */
async function lowMemoryCollection(): Promise<void> {
  let session: Session;
  try {
    session = new Session();
    session.connect();
  } catch {
    return;
  }
  try {
    await session.post("HeapProfiler.collectGarbage");
  } catch {
    // Another inspector client may hold the heap profiler; the next idle period tries again.
  } finally {
    session.disconnect();
  }
}

/** process.memoryUsage().heapTotal without its read of /proc for the RSS: no file I/O on the main thread. */
function reservedHeapBytes(): number {
  return getHeapStatistics().total_heap_size;
}
