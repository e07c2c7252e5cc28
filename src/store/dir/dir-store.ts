// The state dir as the main thread sees it (the default store, src/store/session-store.ts): it creates a session's log
// (the header line), reads headers for session/load and sidecars for session/list, holds the per-session lock files
// (lock-file.ts),
// the attributes a client sets (title, archived: session-attributes.ts), forks (fork-log.ts) and deletes. It never
// appends to a log: that is the session worker's (workers/log/journal-file.ts).
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { access, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { ListSessionsResponse, RequestError } from "@agentclientprotocol/sdk/unstable";
import type { WorkerLog, SettingsFrom } from "../../protocol/port.js";
import {
  deletedDir,
  freshRestorePoint,
  isSessionId,
  LOG_FORMAT,
  LOG_SUFFIX,
  LogError,
  parseHeaderLine,
  SessionSidecar,
  SIDECAR_FORMAT,
  sessionPaths,
  sessionsDir,
  type LogHeader,
  type SessionPaths,
} from "../../protocol/log/session-log.js";
import { hostError, notFound } from "../../request-errors.js";
import { ConfigError } from "../../host-options.js";
import { CreationSync } from "./creation-sync.js";
import { SessionIndex, type IndexedSession } from "./session-index.js";
import { decodeCursor, encodeCursor } from "../list-cursor.js";
import { archiveMatches, listedMeta } from "../listing.js";
import { newSessionHeader } from "../new-header.js";
import type {
  ForkedSession,
  ForkRequest,
  ListOptions,
  NewSessionSettings,
  SessionStore,
  SessionWriter,
} from "../session-store.js";
import type { Logger } from "../../logger.js";
import { writeForkLog } from "./fork-log.js";
import { LockFiles } from "./lock-file.js";
import {
  ATTRIBUTES_SUFFIX,
  attributesPath,
  NO_ATTRIBUTES,
  readAttributes,
  removeAttributes,
  writeAttributes,
  type SessionAttributes,
} from "./session-attributes.js";

/** A header longer than this is not one of ours. */
const HEADER_MAX_BYTES = 64 * 1024;

export interface DirStoreOptions {
  /** A session's log is compacted once its entries since the last compaction take this many bytes. */
  compactBytes: number;
}

export class DirStore implements SessionStore {
  readonly stateDir: string;
  readonly label: string;
  readonly #options: DirStoreOptions;
  readonly #logger: Logger;
  readonly #locks: LockFiles;
  readonly #creations: CreationSync;
  readonly #index: SessionIndex;
  /** Sessions with an attributes file, as the directory's names last said (and as this host wrote them since). */
  readonly #attributed = new Set<string>();
  /** One change of a session's attributes at a time (each rewrites the whole file). */
  readonly #attributeWrites = new Map<string, Promise<void>>();

  constructor(stateDir: string, logger: Logger, options: DirStoreOptions) {
    this.stateDir = stateDir;
    this.label = `state dir ${stateDir}`;
    this.#options = options;
    this.#logger = logger;
    this.#locks = new LockFiles(logger);
    this.#creations = new CreationSync(sessionsDir(stateDir), logger);
    this.#index = new SessionIndex(
      {
        ids: () => this.#storedIds(),
        version: () => this.#namesVersion(),
        read: (id, deleted) => this.#summary(id, deleted),
      },
      logger,
    );
    try {
      mkdirSync(sessionsDir(stateDir), { recursive: true });
      mkdirSync(deletedDir(stateDir), { recursive: true });
    } catch (error) {
      throw new ConfigError(`--state-dir ${stateDir}: ${(error as Error).message}`);
    }
  }

  paths(sessionId: string): SessionPaths {
    return sessionPaths(this.stateDir, sessionId);
  }

  async workerLog(sessionId: string, settingsFrom: SettingsFrom): Promise<WorkerLog> {
    const paths = this.paths(sessionId);
    return {
      kind: "dir",
      path: paths.log,
      sidecarPath: paths.sidecar,
      outputDir: paths.outputDir,
      settingsFrom,
      compactingPath: paths.compacting,
      restorePointPath: paths.restorePoint,
      compactBytes: this.#options.compactBytes,
    };
  }

  outputDir(sessionId: string): string {
    return this.paths(sessionId).outputDir;
  }

  /** The session's worker writes its own log. */
  writer(): SessionWriter | null {
    return null;
  }

  /** One host process has a session at a time (its lock file): none is ever taken from it, nor asked for. */
  onLoss(): void {}

  onTakeover(): void {}

  readonly shared = false;
  readonly feed = null;
  readonly commits = 0;

  /** Local files: a failure is the request's own error, never the store's state. */
  readonly reachable = true;

  async close(): Promise<void> {}

  /**
   * Mints a fresh id and creates the session's log: lock, then the header line. The file and its directory entry
   * are flushed in the background (CreationSync); the worker writes the sidecar when it opens the log.
   */
  async create(settings: NewSessionSettings, hostVersion: string, tenant: string | null): Promise<string> {
    const id = await this.#claimId();
    const paths = this.paths(id);
    const header = newSessionHeader(id, settings, hostVersion, tenant);
    try {
      await writeFile(paths.log, `${JSON.stringify(header)}\n`, { flag: "wx" });
    } catch (error) {
      await this.unlock(id);
      throw hostError("STORE_FAILED", `cannot create the session log: ${(error as Error).message}`, {
        stateDir: this.stateDir,
      });
    }
    this.#creations.schedule(paths.log);
    this.#index.touched(id);
    return id;
  }

  /**
   * The source's log up to its last ended turn, copied under the fork's header (fork-log.ts), then a sidecar, so
   * session/list shows the fork's title and turns at once. Like a new session's log, the file and the directory entry
   * that names it are flushed right after, off the request path (a kill -9 loses nothing written; the fork's first turn
   * end flushes its log in any case).
   */
  async fork(request: ForkRequest): Promise<ForkedSession> {
    const { sourceId } = request;
    const source = await this.readHeader(sourceId);
    const id = await this.#claimId();
    const paths = this.paths(id);
    const createdAt = new Date().toISOString();
    let written: Awaited<ReturnType<typeof writeForkLog>>;
    try {
      written = await writeForkLog(this.paths(sourceId).log, sourceId, paths.log, (at) => ({
        format: LOG_FORMAT,
        formatVersion: source.formatVersion,
        sessionId: id,
        cwd: request.cwd,
        createdAt,
        mode: at.mode,
        model: at.model,
        hostVersion: request.hostVersion,
        ...(request.tenant ? { tenant: request.tenant } : {}),
        ...((request.systemPrompt ?? at.systemPrompt)
          ? { systemPrompt: request.systemPrompt ?? at.systemPrompt! }
          : {}),
        forkOf: { sessionId: sourceId, turns: at.turns },
      }));
    } catch (error) {
      await rm(paths.log, { force: true });
      await this.unlock(id);
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw this.unknownSession(sourceId);
      if (error instanceof LogError) throw unusable(sourceId, this.paths(sourceId).log, error.message);
      throw hostError("STORE_FAILED", `cannot fork session ${sourceId}: ${(error as Error).message}`, {
        sessionId: sourceId,
      });
    }
    const { state } = written;
    const forkOf = { sessionId: sourceId, turns: state.turns };
    const sidecar: SessionSidecar = {
      format: SIDECAR_FORMAT,
      sessionId: id,
      cwd: request.cwd,
      title: state.title,
      createdAt,
      updatedAt: createdAt,
      turns: state.turns,
      ...(request.tenant ? { tenant: request.tenant } : {}),
      forkOf,
    };
    await writeFile(paths.sidecar, JSON.stringify(sidecar)).catch((error: unknown) =>
      this.#logger.warn({ sessionId: id, err: error }, "fork's sidecar not written: listed from its header"),
    );
    this.#creations.schedule(paths.log);
    this.#index.touched(id);
    return {
      sessionId: id,
      forkOf,
      mode: state.mode,
      model: state.model,
      systemPrompt: request.systemPrompt ?? state.systemPrompt,
      title: state.title,
      bytesWritten: written.bytes,
    };
  }

  /** A fresh id (never one deleted), locked to this process. */
  async #claimId(): Promise<string> {
    for (;;) {
      const id = randomUUID();
      const paths = this.paths(id);
      if ((await exists(paths.tombstone)) || (await exists(paths.log))) continue;
      await this.lock(id);
      return id;
    }
  }

  async title(sessionId: string): Promise<string | null> {
    const attributes = await this.#attributes(sessionId);
    if (attributes.title !== null) return attributes.title;
    try {
      const sidecar = SessionSidecar.safeParse(await readSidecar(this.paths(sessionId).sidecar));
      return sidecar.success ? sidecar.data.title : null;
    } catch {
      return null;
    }
  }

  async setTitle(sessionId: string, title: string): Promise<void> {
    await this.#changeAttributes(sessionId, (attributes) => ({ ...attributes, title }));
  }

  async setArchived(sessionId: string, archived: boolean): Promise<void> {
    await this.#changeAttributes(sessionId, (attributes) => ({ ...attributes, archived }));
  }

  async #changeAttributes(
    sessionId: string,
    change: (attributes: SessionAttributes) => SessionAttributes,
  ): Promise<void> {
    // -32002 for a session that is not stored here.
    await this.readHeader(sessionId);
    const path = attributesPath(this.stateDir, sessionId);
    const previous = this.#attributeWrites.get(sessionId) ?? Promise.resolve();
    const write = previous
      .catch(() => {})
      .then(async () => {
        const attributes = await this.#attributes(sessionId);
        await writeAttributes(path, change(attributes));
        this.#attributed.add(sessionId);
        this.#index.touched(sessionId);
      });
    this.#attributeWrites.set(sessionId, write);
    try {
      await write;
    } catch (error) {
      throw hostError("STORE_FAILED", `cannot store session ${sessionId}'s attributes: ${(error as Error).message}`, {
        sessionId,
        path,
      });
    } finally {
      if (this.#attributeWrites.get(sessionId) === write) this.#attributeWrites.delete(sessionId);
    }
  }

  /** A session's attributes; a damaged file counts as none (and is logged): the log is the session, this is a label. */
  async #attributes(sessionId: string): Promise<SessionAttributes> {
    try {
      return await readAttributes(attributesPath(this.stateDir, sessionId));
    } catch (error) {
      this.#logger.warn({ sessionId, err: error }, "session attributes unreadable: taken as none set");
      return NO_ATTRIBUTES;
    }
  }

  /**
   * The header of a stored session, checked: -32002 when there is no such session (or it was deleted), -32603
   * naming the file and the reason when the file is not a usable log of this session.
   */
  async readHeader(sessionId: string): Promise<LogHeader> {
    if (!isSessionId(sessionId)) throw notFound(sessionId, `unknown session: ${sessionId}`);
    const paths = this.paths(sessionId);
    if (await exists(paths.tombstone)) throw notFound(sessionId, `session ${sessionId} was deleted`);
    let line: string;
    try {
      line = await readFirstLine(paths.log);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw this.unknownSession(sessionId);
      throw unusable(
        sessionId,
        paths.log,
        error instanceof LogError ? error.message : `it cannot be read (${(error as Error).message})`,
      );
    }
    try {
      return parseHeaderLine(line, sessionId);
    } catch (error) {
      if (error instanceof LogError) throw unusable(sessionId, paths.log, error.message);
      throw error;
    }
  }

  /** The answer for a session id with no log here (and, to a tenant, for another tenant's session). */
  unknownSession(sessionId: string): RequestError {
    return notFound(sessionId, `unknown session: ${sessionId} (no log in ${this.stateDir})`);
  }

  /** Takes this process's lock on a session (lock-file.ts), so no other host process opens it while this one has it. */
  lock(sessionId: string): Promise<void> {
    return this.#locks.take(sessionId, this.paths(sessionId).lock);
  }

  /** Drops this process's lock on a session (and only this process's). */
  unlock(sessionId: string): Promise<void> {
    return this.#locks.release(this.paths(sessionId).lock);
  }

  /** Resolves once every session log created so far is on disk (teardown). */
  flushed(): Promise<void> {
    return this.#creations.flushed();
  }

  /**
   * Deletes a stored session for good: a tombstone first (so a crash midway still leaves it deleted), then the
   * log, sidecar, output files and lock. A session open in another host process is refused; an unknown one is
   * a no-op (false). The caller has closed it on this connection.
   */
  async remove(sessionId: string): Promise<boolean> {
    if (!isSessionId(sessionId)) return false;
    const paths = this.paths(sessionId);
    const stored = (await exists(paths.log)) || (await exists(paths.sidecar));
    if (!stored) {
      await this.unlock(sessionId);
      return false;
    }
    await this.lock(sessionId);
    try {
      await writeFile(paths.tombstone, "");
      await Promise.all([
        rm(paths.log, { force: true }),
        rm(paths.compacting, { force: true }),
        rm(paths.restorePoint, { force: true }),
        rm(freshRestorePoint(paths.restorePoint), { force: true }),
        rm(paths.sidecar, { force: true }),
        rm(paths.outputDir, { recursive: true, force: true }),
        removeAttributes(attributesPath(this.stateDir, sessionId)),
      ]);
      this.#attributed.delete(sessionId);
    } finally {
      this.#index.touched(sessionId);
      await this.unlock(sessionId);
    }
    return true;
  }

  /** A session's files changed (its worker opened it, ended a turn, or let it go): it is listed as it is now. */
  touched(sessionId: string): void {
    this.#index.touched(sessionId);
  }

  /** Stored sessions as the listing index has them; null until it is built. */
  storedSessions(): Promise<number | null> {
    return this.#index.size();
  }

  /** A state dir is one host's: no fleet. */
  fleetHosts(): Promise<null> {
    return Promise.resolve(null);
  }

  /** Reads every stored session's summary in the background, so the first session/list does not. */
  start(): void {
    this.#index
      .build()
      .catch((error: unknown) => this.#logger.warn({ err: error }, "session index not built (session/list builds it)"));
  }

  /**
   * Stored sessions, most recently updated first, as the index has them (session-index.ts); tenant: only that
   * tenant's sessions (null: every session).
   */
  async list(options: ListOptions): Promise<ListSessionsResponse> {
    const after = options.cursor ? decodeCursor(options.cursor) : null;
    const wantedCwd = options.cwd ? resolve(options.cwd) : null;
    const { sessions, more } = await this.#index
      .page({
        after,
        pageSize: options.pageSize,
        matches: (session) =>
          (options.tenant === null || session.tenant === options.tenant) &&
          (wantedCwd === null || session.cwdKey === wantedCwd) &&
          archiveMatches(options.archived, session.info.archived === true),
      })
      .catch((error: unknown) => {
        throw hostError("STORE_FAILED", `cannot list the stored sessions: ${(error as Error).message}`, {
          stateDir: this.stateDir,
        });
      });
    const page = sessions.map((session) => session.info);
    const last = page.at(-1);
    return { sessions: page, ...(more && last ? { nextCursor: encodeCursor(last.updatedAt, last.sessionId) } : {}) };
  }

  async #namesVersion(): Promise<string> {
    const [sessions, deleted] = await Promise.all([stat(sessionsDir(this.stateDir)), stat(deletedDir(this.stateDir))]);
    return `${sessions.mtimeMs}/${deleted.mtimeMs}`;
  }

  async #storedIds(): Promise<string[]> {
    const [names, deleted] = await Promise.all([
      readdir(sessionsDir(this.stateDir)),
      readdir(deletedDir(this.stateDir)),
    ]);
    const tombstones = new Set(deleted);
    for (const name of names)
      if (name.endsWith(ATTRIBUTES_SUFFIX)) this.#attributed.add(name.slice(0, -ATTRIBUTES_SUFFIX.length));
    return names
      .filter((name) => name.endsWith(LOG_SUFFIX))
      .map((name) => name.slice(0, -LOG_SUFFIX.length))
      .filter((id) => isSessionId(id) && !tombstones.has(id));
  }

  /**
   * A session as its sidecar says (its header when the sidecar is missing or damaged), with the attributes a client
   * set; null: not listable. A session's attributes file is read when the directory's names said it has one.
   */
  async #summary(id: string, deleted: boolean): Promise<IndexedSession | null> {
    const paths = this.paths(id);
    if (deleted && (await exists(paths.tombstone))) return null;
    const attributes = this.#attributed.has(id) ? await this.#attributes(id) : NO_ATTRIBUTES;
    const listed = (entry: Omit<IndexedSession, "info"> & { info: IndexedSession["info"] }): IndexedSession => ({
      ...entry,
      info: { ...entry.info, title: attributes.title ?? entry.info.title ?? null, archived: attributes.archived },
    });
    try {
      const parsed = SessionSidecar.safeParse(await readSidecar(paths.sidecar));
      if (parsed.success && parsed.data.sessionId === id) {
        const { cwd, title, updatedAt, turns, createdAt, tenant, parent, forkOf } = parsed.data;
        return listed({
          tenant: tenant ?? null,
          cwdKey: resolve(cwd),
          info: {
            sessionId: id,
            cwd,
            title,
            updatedAt,
            _meta: listedMeta({ turns, createdAt, tenant, parent, forkOf }),
          },
        });
      }
    } catch {
      // missing or unreadable: fall back to the header
    }
    try {
      const { line, alone } = await readHeaderLine(paths.log);
      const header = parseHeaderLine(line, id);
      // No sidecar yet: session/new answers before its worker opens the log and writes one. A log that is only its
      // header is a session with no turn, listed as one: otherwise a fresh session's turns would depend on whether
      // a page came before or after its worker started.
      const turns = alone ? 0 : undefined;
      return listed({
        tenant: header.tenant ?? null,
        cwdKey: resolve(header.cwd),
        info: {
          sessionId: id,
          cwd: header.cwd,
          title: null,
          updatedAt: header.createdAt,
          _meta: listedMeta({
            turns,
            createdAt: header.createdAt,
            tenant: header.tenant,
            parent: header.parent,
            forkOf: header.forkOf,
          }),
        },
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        this.#logger.warn(
          { sessionId: id, reason: (error as Error).message },
          "session not listed: its log is unusable",
        );
      return null;
    }
  }
}

async function readFirstLine(path: string): Promise<string> {
  return (await readHeaderLine(path)).line;
}

/** The log's first line, and whether the file ends with it (a session no turn, nor its worker, has written to). */
async function readHeaderLine(path: string): Promise<{ line: string; alone: boolean }> {
  const file = await open(path, "r");
  try {
    const buffer = Buffer.alloc(HEADER_MAX_BYTES);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    const newline = buffer.subarray(0, bytesRead).indexOf(0x0a);
    if (newline < 0)
      throw new LogError(bytesRead === 0 ? "the file is empty (no header)" : "its header line is torn or too long");
    return { line: buffer.toString("utf8", 0, newline), alone: bytesRead === newline + 1 && bytesRead < buffer.length };
  } finally {
    await file.close();
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function unusable(sessionId: string, path: string, why: string): RequestError {
  return hostError("LOG_UNUSABLE", `session log ${path} cannot be used: ${why}`, { sessionId, path, why });
}

/** A worker rewrites its session's sidecar in place: a read that caught it mid-write is read again once. */
async function readSidecar(path: string): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    const text = await readFile(path, "utf8");
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      if (attempt > 0) throw error;
    }
  }
}
