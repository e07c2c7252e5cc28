// The piscina task that is a session worker's whole life: it serves one session over the two transferred ports
// and never returns. The main thread ends it by aborting the task, which terminates the thread.
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
import { MemoryJournal } from "./journal.js";
import { createModel } from "./models/create-model.js";
import { createTools } from "./tools/create-tools.js";

export default function runSession(task: SessionTask): Promise<never> {
  const init = WorkerInit.parse(task.init);
  const events = new EventSink(task.events as MessagePort);
  const faults = { allowFaultInjection: init.allowFaultInjection };
  const journal = new MemoryJournal();
  const loop = new AgentLoop({
    model: createModel(init.model, faults),
    tools: createTools(init),
    events,
    journal,
    mode: init.mode,
    cwd: init.cwd,
    maxTurnRequests: init.maxTurnRequests,
  });

  const api: SessionWorkerApi = {
    async prompt(command) {
      return loop.prompt(PromptCommand.parse(command));
    },
    async cancel(turnId) {
      loop.cancel(String(turnId));
    },
    async resolvePermission(requestId, outcome) {
      loop.resolvePermission(String(requestId), PermissionOutcome.parse(outcome));
    },
    async setMode(mode) {
      loop.setMode(SessionModeId.parse(mode));
    },
    async setModel(model) {
      loop.setModel(createModel(ModelConfig.parse(model), faults));
    },
    async replay() {
      return { turns: 0 };
    },
    async dispose() {
      journal.close();
      events.flush();
    },
  };
  Comlink.expose(api, task.commands as Comlink.Endpoint);
  return new Promise<never>(() => {});
}
