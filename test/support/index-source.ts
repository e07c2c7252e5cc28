// An IndexSource over an in-memory "state dir" that counts what the index reads.
import type { IndexedSession, IndexSource } from "../../src/store/dir/session-index.js";

export class FakeSource implements IndexSource {
  readonly sessions = new Map<string, IndexedSession>();
  reads = 0;
  scans = 0;
  #version = 0;

  put(id: string, updatedAt: string, cwd = "/w", tenant: string | null = null): void {
    if (!this.sessions.has(id)) this.#version++;
    this.sessions.set(id, { tenant, cwdKey: cwd, info: { sessionId: id, cwd, title: null, updatedAt } });
  }

  remove(id: string): void {
    this.sessions.delete(id);
    this.#version++;
  }

  async ids(): Promise<string[]> {
    this.scans++;
    return [...this.sessions.keys()];
  }

  async version(): Promise<string> {
    return String(this.#version);
  }

  async read(id: string, _deleted: boolean): Promise<IndexedSession | null> {
    this.reads++;
    return this.sessions.get(id) ?? null;
  }
}

export const at = (second: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
export const id = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
