// Child sessions: a parent session's spawn_agent, made real by the host. The parent's worker asks over its port
// (child_request); this checks the request against the parent (depth, children open, mode, cwd), creates the child
// with the store (its mode, cwd and parent written into its header before it exists anywhere else, so no crash can
// leave it with a wider policy than its parent had) or reopens one of the parent's children, announces it to a client
// that understands subagents, runs the prompt in the child's own worker and answers with its final message. A
// child is a session like any other: in the table, counted against every limit, listed, loadable, forkable.
import { realpath, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { isInside } from "../../protocol/paths.js";
import { hasReason } from "../../request-errors.js";
import type { WorkspaceRoots } from "../roots/workspace-roots.js";
import { SessionModeId, type ChildOutcome } from "../../protocol/port.js";
import { titleFrom } from "../../protocol/log/session-log.js";
import type { Logger } from "../../logger.js";
import type { Admission } from "../admission.js";
import type { LifecycleHooks } from "../session/lifecycle-hooks.js";
import { openSession, type OpeningHost } from "../session/open-session.js";
import type { ChildRequest, Delegation } from "../session/session-deps.js";
import { lineageOf, type LiveSession } from "../session/session.js";
import { narrowest, wider } from "./mode-width.js";
import type { HostTracing } from "../traces/host-tracing.js";
import { traced } from "../traces/traced-answer.js";
import { tracedSession } from "../traces/traced-session.js";

/** What of the host this needs. */
export interface DelegationHost extends OpeningHost {
  readonly logger: Logger;
  readonly limits: { maxDepth: number; maxChildren: number };
  readonly admission: Pick<Admission, "assertAccepting" | "admit">;
  readonly tracing: HostTracing | null;
  readonly roots: Pick<WorkspaceRoots, "check">;
}

/** A request this host will not carry out, said to the parent's model as the tool's result. */
class Refusal extends Error {}

/** The child a request is for, and the mode it runs the prompt in. */
interface Chosen {
  child: LiveSession;
  mode: SessionModeId;
}

export class ChildSessions implements Delegation {
  readonly #host: DelegationHost;
  /** The children running a turn for a parent's turn, by parent. */
  readonly #running = new Map<string, Set<LiveSession>>();

  /** hooks: a parent's turn that ends or is being cancelled cancels the children's turns it started. */
  constructor(host: DelegationHost, hooks: LifecycleHooks) {
    this.#host = host;
    hooks.on("turnEnded", ({ sessionId }) => this.#parentTurnEnded(sessionId));
    hooks.on("turnCancelling", ({ sessionId }) => this.#parentTurnEnded(sessionId));
  }

  async run(parentId: string, request: ChildRequest): Promise<ChildOutcome> {
    const parent = this.#host.sessions.find(parentId);
    if (!parent?.runs(request.turnId))
      return { ok: false, sessionId: null, error: "spawn_agent: the turn that asked for a child is no longer running" };
    let child: LiveSession | null = null;
    try {
      const chosen =
        request.session === undefined
          ? await this.#spawn(parent, request)
          : await this.#reopen(parent, request.session, request);
      child = chosen.child;
      return await this.#runTurn(parent, chosen, request);
    } catch (error) {
      const sessionId = child?.id ?? null;
      if (error instanceof Refusal) return { ok: false, sessionId, error: `spawn_agent refused: ${error.message}` };
      // The model reads what went wrong, not the JSON-RPC category the client's answer would carry.
      const message =
        error instanceof Error
          ? error.message.replace(/^(Internal error|Invalid request|Invalid params): /, "")
          : String(error);
      this.#host.logger.warn({ sessionId: parent.id, childId: sessionId, err: error }, "child session failed");
      return {
        ok: false,
        sessionId,
        error: sessionId ? `child session ${sessionId} failed: ${message}` : `spawn_agent failed: ${message}`,
      };
    }
  }

  #parentTurnEnded(parentId: string): void {
    for (const child of this.#running.get(parentId) ?? [])
      child.cancel("the parent session's turn ended or was cancelled");
  }

  async closing(parentId: string, graceMs: number): Promise<void> {
    const children = this.#host.sessions.childrenOf(parentId);
    for (const child of children) this.#host.sessions.delete(child.id);
    await Promise.all(children.map((child) => child.close(graceMs)));
    if (children.length > 0)
      this.#host.logger.info(
        { sessionId: parentId, children: children.length },
        "child sessions closed with their parent",
      );
  }

  /** A new child: checked against its parent, then created (header first), then in the table. */
  async #spawn(parent: LiveSession, request: ChildRequest): Promise<Chosen> {
    const host = this.#host;
    host.admission.assertAccepting();
    const { maxDepth, maxChildren } = host.limits;
    const depth = parent.lineage.depth + 1;
    if (depth > maxDepth) {
      throw new Refusal(
        `this session is ${parent.lineage.depth === 0 ? "a top-level session" : `a child ${parent.lineage.depth} deep`}, and --max-delegation-depth ${maxDepth} allows no child below it`,
      );
    }
    const open = host.sessions.childrenOf(parent.id);
    if (open.length >= maxChildren) {
      throw new Refusal(
        `this session has ${open.length} child sessions open (--max-children ${maxChildren}): prompt one of them again with "session" instead`,
      );
    }
    const mode = this.#modeFor(parent, request.mode, null);
    const cwd = await this.#cwdFor(parent, request.cwd);
    const child = await openSession(host, {
      kind: "child",
      settings: { cwd, mode, model: parent.settings.model, mcpServers: [] },
      tenant: parent.tenant,
      lineage: { parentId: parent.id, depth, modeCeiling: mode },
      place: { tree: parent.share.tree, priority: parent.share.priority },
      follow: () => parent.outbox,
    });
    host.logger.info({ sessionId: child.id, parentId: parent.id, depth, mode, cwd }, "child session created");
    return { child, mode };
  }

  /** One of the parent's children, open here or only stored (then opened from its log, as session/resume would). */
  async #reopen(parent: LiveSession, childId: string, request: ChildRequest): Promise<Chosen> {
    const host = this.#host;
    const notAChild = () => new Refusal(`${childId} is not a child session of this session`);
    let child = host.sessions.find(childId);
    if (child) {
      if (child.lineage.parentId !== parent.id) throw notAChild();
    } else {
      host.admission.assertAccepting();
      const header = await host.store.readHeader(childId).catch((error: unknown) => {
        if (hasReason(error, "SESSION_NOT_FOUND")) throw notAChild();
        throw error;
      });
      if (header.parent?.sessionId !== parent.id || (header.tenant ?? null) !== parent.tenant) throw notAChild();
      // Resumed, its worker first: its mode is its log's (a client may have narrowed it), not its header's.
      child = await openSession(host, {
        kind: "resume",
        id: childId,
        settings: {
          cwd: header.cwd,
          mode: header.mode,
          model: host.sessionDeps.resolveModel(header.model),
          mcpServers: [],
        },
        tenant: parent.tenant,
        lineage: lineageOf(header),
        follow: () => parent.outbox,
      });
    }
    // Never wider than the parent's mode now, nor than the mode the child was made with (set once it is announced).
    return { child, mode: this.#modeFor(parent, request.mode, child) };
  }

  /** The child's mode: the one asked for (or the child's own, or else the parent's), refused when wider than allowed. */
  #modeFor(parent: LiveSession, asked: string | undefined, child: LiveSession | null): SessionModeId {
    const parentMode = parent.settings.mode;
    if (asked === undefined) return child ? narrowest(child.settings.mode, parentMode) : parentMode;
    const mode = SessionModeId.safeParse(asked);
    if (!mode.success)
      throw new Refusal(`unknown mode ${JSON.stringify(asked)} (modes: ${SessionModeId.options.join(", ")})`);
    if (wider(mode.data, parentMode))
      throw new Refusal(
        `mode ${mode.data} is wider than this session's mode ${parentMode}: a child's mode is its parent's or narrower`,
      );
    const ceiling = child?.lineage.modeCeiling ?? null;
    if (ceiling && wider(mode.data, ceiling))
      throw new Refusal(`mode ${mode.data} is wider than the mode ${ceiling} child session ${child!.id} was made with`);
    return mode.data;
  }

  /** The parent's cwd, or a directory inside it (a relative path is taken from the parent's cwd). */
  async #cwdFor(parent: LiveSession, asked: string | undefined): Promise<string> {
    const parentCwd = parent.settings.cwd;
    if (asked === undefined) return parentCwd;
    const cwd = isAbsolute(asked) ? resolve(asked) : resolve(parentCwd, asked);
    const [real, parentReal] = await Promise.all([
      realpath(cwd).catch(() => null),
      realpath(parentCwd).catch(() => parentCwd),
    ]);
    if (real === null || !(await stat(real)).isDirectory())
      throw new Refusal(`cwd ${asked} is not an existing directory`);
    if (!isInside(parentReal, real))
      throw new Refusal(`cwd ${asked} is not this session's working directory ${parentCwd} or inside it`);
    // The parent's roots may have narrowed since it was made (the tokens file reloaded): the child keeps to today's,
    // and with roots it keeps the real path, as any session does.
    return this.#host.roots.check("cwd", cwd, parent.tenant).catch(() => {
      throw new Refusal(`cwd ${asked} is outside this tenant's workspace roots (OUTSIDE_WORKSPACE_ROOTS)`);
    });
  }

  /** Announces the child (before any of its traffic), runs the prompt there in its mode, and tells how it ended. */
  async #runTurn(parent: LiveSession, { child, mode }: Chosen, request: ChildRequest): Promise<ChildOutcome> {
    const announce = (
      update: Omit<Extract<SessionUpdate, { sessionUpdate: "subagent_update" }>, "sessionUpdate" | "sessionId">,
    ) => parent.announce({ sessionUpdate: "subagent_update", sessionId: child.id, ...update });
    await announce({
      title: request.title ?? titleFrom(request.prompt),
      ...(request.description !== undefined ? { description: request.description } : {}),
      cwd: child.settings.cwd,
      capabilities: { cancel: {} },
      state: { state: "running" },
    });
    if (mode !== child.settings.mode) await child.setMode(mode);
    let running = this.#running.get(parent.id);
    if (!running) this.#running.set(parent.id, (running = new Set()));
    running.add(child);
    try {
      // A cancel that came while the child was being made found nothing to cancel yet.
      if (!parent.runs(request.turnId)) throw new Refusal("the turn was cancelled before the child started");
      const span = this.#host.tracing?.childTurn(tracedSession(child), request.trace, request.prompt) ?? null;
      const answer = child.promptAsChild(request.prompt, span?.trace ?? null);
      const { response, lastMessage } = await (span ? traced(answer, span) : answer);
      // Not waited for: the parent's outbox keeps it ahead of the tool result the answer below leads to.
      void announce({ state: { state: "idle", stopReason: response.stopReason } });
      return { ok: true, sessionId: child.id, stopReason: response.stopReason, message: lastMessage };
    } catch (error) {
      void announce({ state: { state: "idle" } });
      throw error;
    } finally {
      running.delete(child);
      if (running.size === 0) this.#running.delete(parent.id);
    }
  }
}
