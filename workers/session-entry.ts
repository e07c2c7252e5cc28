// The piscina task that is a session worker's whole life: it waits on standby until start(init) binds it to one
// session, serves that session over the two transferred ports, and never returns. The main thread ends it by
// aborting the task, which terminates the thread.
import type { MessagePort } from "node:worker_threads";
import * as Comlink from "comlink";
import {
  ModelConfig,
  PermissionOutcome,
  PromptCommand,
  SessionModeId,
  WorkerInit,
  type SessionTask,
  type SessionWorkerApi,
} from "../src/protocol/port.js";
import { AgentLoop } from "./agent-loop.js";
import { EventSink } from "./event-sink.js";
import { MemoryJournal, type Journal } from "./journal.js";
import { createModel } from "./models/create-model.js";
import { createTools } from "./tools/create-tools.js";

interface Session {
  init: WorkerInit;
  loop: AgentLoop;
  journal: Journal;
}

function openSession(init: WorkerInit, events: EventSink): Session {
  const journal = new MemoryJournal();
  const loop = new AgentLoop({
    model: createModel(init.model, { allowFaultInjection: init.allowFaultInjection }),
    tools: createTools(init),
    events,
    journal,
    mode: init.mode,
    cwd: init.cwd,
    maxTurnRequests: init.maxTurnRequests,
  });
  return { init, loop, journal };
}

export default function runSession(task: SessionTask): Promise<never> {
  const events = new EventSink(task.events as MessagePort);
  let bind: (session: Session) => void = () => {};
  const bound = new Promise<Session>((resolve) => (bind = resolve));
  let started = false;

  const api: SessionWorkerApi = {
    async start(init) {
      if (started) throw new Error("this worker already serves a session");
      started = true;
      bind(openSession(WorkerInit.parse(init), events));
    },
    async prompt(command) {
      return (await bound).loop.prompt(PromptCommand.parse(command));
    },
    async cancel(turnId) {
      (await bound).loop.cancel(String(turnId));
    },
    async resolvePermission(requestId, outcome) {
      (await bound).loop.resolvePermission(String(requestId), PermissionOutcome.parse(outcome));
    },
    async setMode(mode) {
      (await bound).loop.setMode(SessionModeId.parse(mode));
    },
    async setModel(model) {
      const session = await bound;
      session.loop.setModel(createModel(ModelConfig.parse(model), { allowFaultInjection: session.init.allowFaultInjection }));
    },
    async replay() {
      return { turns: 0 };
    },
    async dispose() {
      if (!started) return;
      (await bound).journal.close();
      events.flush();
    },
  };
  Comlink.expose(api, task.commands as Comlink.Endpoint);
  return new Promise<never>(() => {});
}
