// The one way a session opens in this host, whatever opens it (session/new, load, resume, fork, a parent's
// spawn_agent): admitted (accepting, capacity, memory), its log made, copied or taken in the store, its record made and
// attached, its worker restored when it has a history, then in the table, and the spawner told of its workspace before
// any later session's sandbox is made. A step added here is added for all of them.
import type { Admission } from "../admission.js";
import type { SessionOutbox } from "./session-outbox.js";
import type { Peer } from "../connection/peer.js";
import type { StartScheduler } from "../../pool/start-scheduler.js";
import type { ForkedSession, ForkRequest, SessionStore } from "../../store/session-store.js";
import type { WorkerPool } from "../../pool/worker-pool.js";
import type { SessionDeps, SessionSettings } from "./session-deps.js";
import { LiveSession, type SessionLineage, type SessionOptions } from "./session.js";
import type { Budget } from "../../protocol/budget.js";
import type { SessionTable } from "./session-table.js";

/** What opening a session needs of the host. */
export interface OpeningHost {
  readonly admission: Pick<Admission, "admit">;
  readonly sessions: SessionTable;
  readonly store: SessionStore;
  readonly version: string;
  readonly sessionDeps: SessionDeps;
  readonly pool: Pick<WorkerPool, "expect">;
  readonly starts: StartScheduler;
  hideWorkspaceOf(session: LiveSession): Promise<void>;
}

interface Attachment {
  /** The connection it is attached to; none for a child session, which follows its parent's (follow). */
  peer?: Peer;
  follow?: () => SessionOutbox | null;
}

/** A session that never was: its log is made now. A child's names its parent. */
interface Fresh extends Attachment {
  kind: "new" | "child";
  settings: SessionSettings;
  tenant: string | null;
  lineage?: SessionLineage;
  /** Its place in the model gateway's fair share (a child takes its parent's). */
  place?: SessionOptions["place"];
}

/** A copy of another session's log up to its last ended turn; its settings follow from the copy. */
interface Fork extends Attachment {
  kind: "fork";
  request: ForkRequest;
  settings(forked: ForkedSession): SessionSettings;
}

/** A stored session taken for this host: restored in a fresh worker (load: and replayed to its client). */
interface Stored extends Attachment {
  kind: "load" | "resume";
  id: string;
  settings: SessionSettings;
  tenant: string | null;
  lineage: SessionLineage;
  /** Its tree's budget, as its header holds it (a root's). */
  budget?: Budget | undefined;
}

export type Opening = Fresh | Fork | Stored;

export async function openSession(host: OpeningHost, opening: Opening): Promise<LiveSession> {
  await host.admission.admit();
  const { session, leased } = await record(host, opening);
  if (opening.peer) session.attach(opening.peer);
  if (opening.kind === "load" || opening.kind === "resume") await restore(session, opening, leased);
  // The record joins the table only now: a request racing the opening finds no half-open session.
  host.sessions.add(session);
  await host.hideWorkspaceOf(session);
  // After the answer is on its way: a new session never waits for a worker thread to be made. A child is prompted at
  // once, which wakes it.
  if (opening.kind === "new" || opening.kind === "fork") host.starts.startSoon(session);
  return session;
}

/**
 * Its log made, copied or taken in the store (before the client learns the id), and its record; leased: to be told
 * once its worker is leased (a thread the pool started ahead for it may then go).
 */
async function record(host: OpeningHost, opening: Opening): Promise<{ session: LiveSession; leased(): void }> {
  const { store, sessionDeps: deps } = host;
  const follow = opening.follow ? { follow: opening.follow } : {};
  switch (opening.kind) {
    case "new":
    case "child": {
      const { settings, tenant, lineage, place } = opening;
      const parent = lineage?.parentId ? { parent: { sessionId: lineage.parentId, depth: lineage.depth } } : {};
      const budget = place?.budget ? { budget: place.budget } : {};
      const id = await store.create({ ...settings, ...parent, ...budget }, host.version, tenant);
      const session = new LiveSession(id, settings, deps, {
        tenant,
        ...(lineage ? { lineage } : {}),
        ...(place ? { place } : {}),
        ...follow,
      });
      return { session, leased: () => {} };
    }
    case "fork": {
      const forked = await store.fork(opening.request);
      const session = new LiveSession(forked.sessionId, opening.settings(forked), deps, {
        tenant: opening.request.tenant,
        title: forked.title,
        ...follow,
      });
      return { session, leased: () => {} };
    }
    case "load":
    case "resume": {
      // Waiting for a dead host's lease, its thread starts meanwhile: a fleet's failover restores its sessions then.
      const expected = { taken: (): void => {} };
      try {
        await store.lock(opening.id, () => (expected.taken = host.pool.expect()));
      } catch (error) {
        expected.taken();
        throw error;
      }
      const title = await store.title(opening.id).catch(() => null);
      const session = new LiveSession(opening.id, opening.settings, deps, {
        stored: true,
        tenant: opening.tenant,
        lineage: opening.lineage,
        ...(opening.budget ? { place: { priority: "interactive", budget: opening.budget } } : {}),
        title,
        ...follow,
      });
      return { session, leased: () => expected.taken() };
    }
  }
}

async function restore(session: LiveSession, opening: Stored, leased: () => void): Promise<void> {
  try {
    if (opening.kind === "load") await session.replayHistory();
    else await session.restore();
  } catch (error) {
    await session.close(0);
    throw error;
  } finally {
    leased();
  }
}
