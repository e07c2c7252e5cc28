// What session/list pages through: every stored session's listing summary, held sorted (most recently updated
// first) on the main thread, so a page is a binary search and a short scan, not a read of every sidecar. It is a
// cache of the state dir, never the truth: built from the sidecars (and headers) when the host starts, re-read
// for a session whenever this host changes it (created, opened, a turn ended, closed), and reconciled with the
// directory's names (sessions another host process, or a hand, made or deleted) when a page finds the directories
// changed: before the page while there are few (reading them takes a few ms), else in the background at most every
// RESCAN_MS (reading 200,000 names takes about half a second).
import type { SessionInfo } from "@agentclientprotocol/sdk/unstable";
import type { Logger } from "../../logger.js";

export interface IndexedSession {
  tenant: string | null;
  /** The session's cwd, resolved: what a cwd filter compares. */
  cwdKey: string;
  info: SessionInfo & { updatedAt: string };
}

export interface IndexSource {
  /** The stored sessions' ids (logs in the state dir, less the deleted ones). */
  ids(): Promise<string[]>;
  /** Changes whenever a name is added to or removed from the directories ids() reads (their mtimes). */
  version(): Promise<string>;
  /**
   * A session's summary as its files say now; null when it is not (or no longer) a listable session. deleted: check
   * for a tombstone too (ids() has not just left the deleted ones out).
   */
  read(id: string, deleted: boolean): Promise<IndexedSession | null>;
}

export interface PageRequest {
  /** The last session of the previous page (updatedAt, sessionId), or null for the first page. */
  after: [string, string] | null;
  pageSize: number;
  matches(session: IndexedSession): boolean;
}

/** How often at most the directory's names are read again in the background when they take long to read. */
const RESCAN_MS = 30_000;
/** Up to this many stored sessions, a page that finds the directories changed reads their names first (a few ms). */
const INLINE_RESCAN_SESSIONS = 5_000;
/** Files read at once: while building in the background, the libuv threadpool stays free for requests. */
const BUILD_CONCURRENCY = 16;
const REFRESH_CONCURRENCY = 64;

export class SessionIndex {
  readonly #source: IndexSource;
  readonly #logger: Logger;
  readonly #byId = new Map<string, IndexedSession>();
  /** By recency (byRecency). */
  #sorted: IndexedSession[] = [];
  /** Sessions whose files changed since they were read. */
  readonly #dirty = new Set<string>();
  #built: Promise<void> | null = null;
  #ready = false;
  #refreshing: Promise<void> | null = null;
  #lastScan = 0;
  /** Sessions the last rescan (or build) found. */
  #scannedIds = 0;
  /** The directories' version the last rescan (or build) read. */
  #scanned: string | null = null;
  #scanning: Promise<void> | null = null;

  constructor(source: IndexSource, logger: Logger) {
    this.#source = source;
    this.#logger = logger;
  }

  /** Starts reading every stored session (in the background); a page waits for it. */
  build(): Promise<void> {
    this.#built ??= this.#build().catch((error: unknown) => {
      this.#built = null;
      throw error;
    });
    return this.#built;
  }

  /** The session's files changed (or may have): it is read again before the next page. */
  touched(id: string): void {
    this.#dirty.add(id);
  }

  async page(request: PageRequest): Promise<{ sessions: IndexedSession[]; more: boolean }> {
    await this.build();
    await this.#rescanIfChanged();
    await this.#refresh();
    const sorted = this.#sorted;
    let index = request.after ? lowerBound(sorted, { updatedAt: request.after[0], sessionId: request.after[1] }) : 0;
    // The cursor's own session (if it is still there with the same time) was on the previous page.
    const at = sorted[index];
    if (request.after && at && byRecency(at.info, { updatedAt: request.after[0], sessionId: request.after[1] }) === 0)
      index++;
    const sessions: IndexedSession[] = [];
    for (; index < sorted.length; index++) {
      const session = sorted[index]!;
      if (!request.matches(session)) continue;
      if (sessions.length === request.pageSize) return { sessions, more: true };
      sessions.push(session);
    }
    return { sessions, more: false };
  }

  /** Stored sessions, with what this host touched read again; null while the index is still being built. */
  async size(): Promise<number | null> {
    if (!this.#ready) return null;
    await this.#refresh();
    return this.#sorted.length;
  }

  async #build(): Promise<void> {
    const started = performance.now();
    this.#lastScan = Date.now();
    this.#scanned = await this.#source.version();
    const ids = await this.#source.ids();
    this.#scannedIds = ids.length;
    const read = await mapLimit(ids, BUILD_CONCURRENCY, (id) => this.#source.read(id, false));
    for (const session of read) if (session) this.#byId.set(session.info.sessionId, session);
    this.#sorted = [...this.#byId.values()].sort((a, b) => byRecency(a.info, b.info));
    this.#ready = true;
    this.#logger.debug(
      { sessions: this.#sorted.length, ms: Math.round(performance.now() - started) },
      "session index built",
    );
  }

  /** Reads what was touched; a page that comes while another's reads are in flight waits for them too. */
  async #refresh(): Promise<void> {
    while (this.#refreshing || this.#dirty.size > 0) {
      if (!this.#refreshing) {
        const ids = [...this.#dirty];
        this.#dirty.clear();
        this.#refreshing = mapLimit(ids, REFRESH_CONCURRENCY, (id) => this.#source.read(id, true))
          .then((read) => ids.forEach((id, i) => this.#put(id, read[i]!)))
          .finally(() => (this.#refreshing = null));
      }
      await this.#refreshing;
    }
  }

  #put(id: string, session: IndexedSession | null): void {
    const old = this.#byId.get(id);
    if (old) {
      const at = lowerBound(this.#sorted, old.info);
      if (this.#sorted[at] === old) this.#sorted.splice(at, 1);
      else this.#sorted = this.#sorted.filter((entry) => entry !== old);
      this.#byId.delete(id);
    }
    if (!session) return;
    this.#byId.set(id, session);
    this.#sorted.splice(lowerBound(this.#sorted, session.info), 0, session);
  }

  async #rescanIfChanged(): Promise<void> {
    if (this.#scanning) {
      if (this.#scannedIds <= INLINE_RESCAN_SESSIONS) await this.#scanning;
      return;
    }
    const version = await this.#source.version();
    if (version === this.#scanned) return;
    if (this.#scannedIds <= INLINE_RESCAN_SESSIONS) return this.#rescan(version);
    if (Date.now() - this.#lastScan >= RESCAN_MS) void this.#rescan(version);
  }

  /** Names only: a session this index does not have, or one whose files are gone, is read again. */
  #rescan(version: string): Promise<void> {
    this.#lastScan = Date.now();
    this.#scanning = this.#source
      .ids()
      .then((ids) => {
        this.#scanned = version;
        this.#scannedIds = ids.length;
        const present = new Set(ids);
        for (const id of ids) if (!this.#byId.has(id)) this.#dirty.add(id);
        for (const id of this.#byId.keys()) if (!present.has(id)) this.#dirty.add(id);
      })
      .catch((error: unknown) => this.#logger.warn({ err: error }, "session index: rescan of the state dir failed"))
      .finally(() => (this.#scanning = null));
    return this.#scanning;
  }
}

/** Newest first; equal times by id, so the order (and a cursor into it) is total. */
export function byRecency(
  a: { updatedAt: string; sessionId: string },
  b: { updatedAt: string; sessionId: string },
): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0;
}

/** The first index whose session does not sort before `key`. */
function lowerBound(sorted: readonly IndexedSession[], key: { updatedAt: string; sessionId: string }): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (byRecency(sorted[mid]!.info, key) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return results;
}
