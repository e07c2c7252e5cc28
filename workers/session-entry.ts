// The piscina task that is a session worker's whole life: it waits on standby until start(init) binds it to one
// session, serves that session over the two transferred ports, and never returns. The main thread ends it by
// aborting the task, which terminates the thread.
import { Budget, costUsd } from "../src/protocol/budget.js";
import { getPriority, setPriority } from "node:os";
import { threadId, type MessagePort } from "node:worker_threads";
import * as Comlink from "comlink";
import {
  ModelConfig,
  REPLAY_TURN_ID,
  ReplayedRecords,
  ReplayFrom,
  asHostMessage,
  HiddenPath,
  SessionModeId,
  SpawnerGrant,
  WorkerInit,
  type SessionTask,
} from "../src/protocol/port.js";
import type { SessionWorkerApi } from "../src/protocol/session-worker-api.js";
import type { WorkerEvent } from "../src/protocol/worker-events.js";
import { OutputWindow, outputBytes } from "../src/protocol/output-window.js";
import { portEndpoint } from "../src/protocol/port-endpoint.js";
import { SystemPromptSetting } from "../src/protocol/system-prompt.js";
import { AgentLoop } from "./loop/agent-loop.js";
import { ChildRequests } from "./loop/child-requests.js";
import { EventSink } from "./event-sink.js";
import { pieces } from "./event-pieces.js";
import type { Journal } from "./log/journal.js";
import { createModel, type ModelOptions } from "./models/create-model.js";
import { GatewayLink } from "./models/gateway-link.js";
import { replayEvents } from "../src/protocol/log/replay-events.js";
import { restoreSession } from "./log/session-restore.js";
import { recordMcpServers } from "./mcp/mcp-record.js";
import { startMcp } from "./mcp/start-mcp.js";
import { parseLeaseSamples } from "./standby-warm-up.js";
import { createTools } from "./tools/create-tools.js";
import type { SpawnerConnection } from "./tools/spawner-connection.js";
import type { ToolRegistry } from "./tools/registry.js";
import type { Workspace } from "./tools/workspace.js";
import { LogError } from "../src/protocol/log/session-log.js";

interface Session {
  init: WorkerInit;
  loop: AgentLoop;
  journal: Journal;
  model: ModelConfig;
  systemPrompt: SystemPromptSetting | null;
  turns: number;
  tools: ToolRegistry;
  spawner: SpawnerConnection;
  workspace: Workspace;
  gateway: GatewayLink;
}

async function openSession(
  init: WorkerInit,
  events: EventSink,
  gateway: GatewayLink,
  children: ChildRequests,
): Promise<Session> {
  const { journal, mode, model, systemPrompt, turns } = restoreSession(init, events);
  events.numberFrom(() => journal.shown);
  const { tools, spawner, workspace } = createTools(init, children);
  recordMcpServers(journal, init.mcpServers);
  // Servers connect in the background: open() does not wait for them; the first model request does (prepare).
  if (init.mcpServers.length > 0) {
    tools.addSource(
      await startMcp({
        servers: init.mcpServers,
        connection: spawner,
        mode,
        startupTimeoutMs: init.mcpStartupTimeoutMs,
        outputCapBytes: init.outputCapBytes,
        // The main thread logs it and tells the client (_host/mcp_status).
        report: (server, status, names, message) =>
          events.post({ type: "mcp_status", server, status, tools: names, message }),
      }),
    );
  }
  const loop = new AgentLoop({
    model: createModel(model, modelOptions(init, events, gateway, systemPrompt)),
    tools,
    events,
    journal,
    mode,
    cwd: init.cwd,
    maxTurnRequests: init.maxTurnRequests,
    maxTurnToolCalls: init.maxTurnToolCalls,
    compactAt: init.compactAt,
    streamChunks: init.streamChunks,
  });
  // What the session's log says it spent: the gateway holds it (and every response since) against its tree's budget.
  // A budget _host/set_budget set while no worker held the session is journaled when the log's differs.
  if (init.budget && JSON.stringify(init.budget) !== JSON.stringify(loop.budget))
    journal.append({ type: "budget", budget: init.budget });
  // The cost of what the log holds is counted at the model's price now (a session whose model changed: approximate).
  gateway.priced(model.price);
  const restoredUsd = model.price ? costUsd(model.price, loop.usage) : 0;
  gateway.restored(loop.spent, init.budget ?? loop.budget, restoredUsd);
  return { init, loop, journal, model, systemPrompt, turns, tools, spawner, workspace, gateway };
}

function modelOptions(
  init: WorkerInit,
  events: EventSink,
  gateway: GatewayLink,
  systemPrompt: SystemPromptSetting | null,
): ModelOptions {
  return {
    allowFaultInjection: init.allowFaultInjection,
    cwd: init.cwd,
    log: events.log.bind(events),
    gateway,
    systemPrompt,
  };
}

// zod/mini leaves error messages to a locale: the model and the log get English ones, as on the main thread.
/** Events per posted batch while replaying, so a long history does not become one huge message. */
const REPLAY_BATCH = 256;

/**
 * Each command's reply leaves after the events the command caused (a mode's log record, a repair): the reply goes
 * on the commands port, which would otherwise overtake the events still queued for this turn of the event loop.
 */
function repliesAfterEvents(api: SessionWorkerApi, events: EventSink): SessionWorkerApi {
  const commands = Object.entries(api) as [string, (...args: unknown[]) => Promise<unknown>][];
  return Object.fromEntries(
    commands.map(([name, command]) => [
      name,
      async (...args: unknown[]) => {
        try {
          return await command(...args);
        } finally {
          events.flush();
        }
      },
    ]),
  ) as unknown as SessionWorkerApi;
}

export default function runSession(task: SessionTask): Promise<never> {
  const window = task.outputWindow instanceof SharedArrayBuffer ? new OutputWindow(task.outputWindow) : null;
  const events = new EventSink(task.events as MessagePort, window);
  const children = new ChildRequests(events);
  let bind: (session: Session) => void = () => {};
  let fail: (error: unknown) => void = () => {};
  const bound = new Promise<Session>((resolve, reject) => {
    bind = resolve;
    fail = reject;
  });
  // A session that could not be opened answers open() with the reason; other commands reject with it.
  bound.catch(() => {});
  let started = false;
  /** The history an attached client's replay is being paged from. */
  let paged: { from: number; pieces: WorkerEvent[] } | null = null;

  const api: SessionWorkerApi = {
    async start(init, gatewayPort) {
      if (started) throw new Error("this worker already serves a session");
      started = true;
      try {
        const parsed = WorkerInit.parse(init);
        lowerPriority(parsed.nice);
        events.limitOutput(parsed.outputWindowBytes);
        const gateway = new GatewayLink(gatewayPort ?? null, (error) =>
          events.log("error", "malformed reply from the model gateway dropped", { error }),
        );
        bind(await openSession(parsed, events, gateway, children));
      } catch (error) {
        fail(error);
        throw error;
      }
    },
    async open() {
      try {
        const session = await bound;
        const { turns, loop, model, journal } = session;
        return { ok: true, turns, mode: loop.mode, model, threadId, shown: journal.shown };
      } catch (error) {
        // A log it cannot use is the log's fault, not the worker's: the same log refuses every worker.
        const reason = error instanceof LogError ? "LOG_UNUSABLE" : "WORKER_FAILED";
        return { ok: false, reason, message: error instanceof Error ? error.message : String(error) };
      }
    },
    async stats() {
      // process.memoryUsage() reads this isolate's heap like node:v8 does, and node:v8, costly to load in every thread,
      // is not loaded.
      return { activeMs: performance.eventLoopUtilization().active, heapUsedBytes: process.memoryUsage().heapUsed };
    },
    async regrant(grant) {
      const session = await bound;
      session.spawner.regrant(SpawnerGrant.parse(grant));
      session.tools.spawnerRestarted();
    },
    async hide(path) {
      (await bound).workspace.hide(HiddenPath.parse(path));
    },
    async setMode(mode) {
      (await bound).loop.setMode(SessionModeId.parse(mode));
    },
    async reconnectGateway(port) {
      (await bound).gateway.connect(port);
    },
    async setModel(model) {
      const session = await bound;
      const config = ModelConfig.parse(model);
      session.loop.setModel(
        createModel(config, modelOptions(session.init, events, session.gateway, session.systemPrompt)),
      );
      session.model = config;
      session.gateway.priced(config.price);
      session.journal.append({ type: "model", model: config });
    },
    async setBudget(budget) {
      const session = await bound;
      const parsed = Budget.parse(budget);
      session.journal.append({ type: "budget", budget: parsed });
      session.gateway.budgetJournaled(parsed);
    },
    async setSystemPrompt(systemPrompt) {
      const session = await bound;
      const setting = SystemPromptSetting.parse(systemPrompt);
      session.loop.setModel(createModel(session.model, modelOptions(session.init, events, session.gateway, setting)));
      session.systemPrompt = setting;
      session.journal.append({ type: "system_prompt", systemPrompt: setting });
    },
    async replay(older) {
      const session = await bound;
      const journal = session.journal;
      const recordsBefore = journal.recordsBefore();
      const given = older === undefined ? undefined : ReplayedRecords.parse(older);
      // Compacted since the host last asked: the records it brought end where this worker's no longer start.
      if (recordsBefore !== null && given?.seq !== recordsBefore) return { turns: 0, recordsBefore };
      const history = replayEvents([...journal.replayed(given), ...journal.entries()]);
      let posted = 0;
      for (const event of history) {
        for (const piece of pieces(event)) {
          events.post(piece);
          if (++posted % REPLAY_BATCH === 0) events.flush();
          // A client that is not reading holds the replay here, not the whole history in the main thread.
          if (events.behind) await events.room();
        }
      }
      events.post({ type: "turn_end", turnId: REPLAY_TURN_ID, stopReason: "end_turn" });
      return { turns: session.journal.turns };
    },
    async replayPage(older, fromSeq, skip, maxBytes) {
      const session = await bound;
      const journal = session.journal;
      const recordsBefore = journal.recordsBefore();
      const given = older === undefined ? undefined : ReplayedRecords.parse(older);
      if (recordsBefore !== null && given?.seq !== recordsBefore) return { events: [], total: 0, recordsBefore };
      const from = ReplayFrom.parse(fromSeq);
      const first = ReplayFrom.parse(skip);
      // The pages of one replay are cut from one reading of the history, kept until its last page is taken.
      if (!paged || paged.from !== from || first === 0)
        paged = {
          from,
          pieces: replayEvents([...journal.replayed(given), ...journal.entries()], from).flatMap(pieces),
        };
      const page: WorkerEvent[] = [];
      for (let bytes = 0, i = first; i < paged.pieces.length && (page.length === 0 || bytes < maxBytes); i++) {
        page.push(paged.pieces[i]!);
        bytes += outputBytes(paged.pieces[i]!);
      }
      const total = paged.pieces.length;
      if (first + page.length >= total) paged = null;
      return { events: page, total };
    },
    async dispose() {
      if (!started) return;
      const session = await bound.catch(() => null);
      if (!session) return;
      // The turn in flight ends as cancelled in the log rather than being cut off by the terminate that follows.
      await session.loop.stop();
      await session.tools.close();
      session.journal.close();
    },
  };
  Comlink.expose(repliesAfterEvents(api, events), portEndpoint(task.commands as MessagePort));
  // The hot path: prompts and cancels arrive as plain messages on the events port, after open() has answered.
  events.onMessage((data) => {
    const message = asHostMessage(data);
    if (!message) return events.log("error", "malformed message from the main thread dropped");
    // Answered at once, bound or not: it says this thread's event loop turns.
    if (message.type === "ping") return events.post({ type: "pong", id: message.id });
    void bound.then((session) => {
      if (message.type === "prompt") session.loop.prompt(message);
      else if (message.type === "cancel") session.loop.cancel(message.turnId, message.reason);
      else if (message.type === "permission") session.loop.resolvePermission(message.requestId, message.outcome);
      else if (message.type === "child_result") children.settle(message.requestId, message.outcome);
    });
  });
  parseLeaseSamples();
  return new Promise<never>(() => {});
}

/**
 * Raises this thread's nice value by `nice` over the one it was made with (the main thread's; Linux keeps one per
 * thread, and 0 names the calling one). A refusal changes nothing.
 */
function lowerPriority(nice: number): void {
  if (nice === 0) return;
  try {
    setPriority(0, Math.min(19, getPriority(0) + nice));
  } catch {
    // the thread runs at the host's priority
  }
}
