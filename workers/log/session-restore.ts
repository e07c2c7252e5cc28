// What a session worker starts from: a fresh in-memory journal, or the session's log restored with load-repair,
// together with the mode and model the session runs with from now on.
import type { ModelConfig, SessionModeId, WorkerInit } from "../../src/protocol/port.js";
import { LogError } from "../../src/protocol/session-log.js";
import type { EventSink } from "../event-sink.js";
import { settingsFrom } from "./history.js";
import { FileJournal } from "./journal-file.js";
import { MemoryJournal, type Journal } from "./journal.js";

export interface RestoredSession {
  journal: Journal;
  mode: SessionModeId;
  model: ModelConfig;
  turns: number;
}

/** Throws LogError (its message names the file and says why) when the log is not a usable log of this session. */
export function restoreSession(init: WorkerInit, events: EventSink): RestoredSession {
  if (!init.log) return { journal: new MemoryJournal(), mode: init.mode, model: init.model, turns: 0 };
  let journal: FileJournal;
  try {
    const { path, sidecarPath, compactingPath, compactBytes } = init.log;
    journal = FileJournal.open({ path, sidecarPath, compactingPath, compactBytes, log: (level, msg, data) => events.log(level, msg, data) }, init.sessionId);
  } catch (error) {
    if (error instanceof LogError) throw new LogError(`session log ${init.log.path} cannot be used: ${error.message}`);
    throw error;
  }
  const { droppedBytes, appended } = journal.repair;
  if (droppedBytes > 0 || appended.length > 0) {
    events.log("warn", "session log repaired", {
      droppedBytes,
      interruptedTurns: appended.filter((entry) => entry.type === "turn_end").length,
      unansweredToolCalls: appended.filter((entry) => entry.type === "tool_result").length,
    });
  }
  const fromLog = settingsFrom(journal.base(), journal.entries());
  if (init.log.restore === "log") return { journal, ...fromLog, turns: journal.turns };
  // The main thread's settings may have moved on while no worker held the session: they win, and are logged.
  if (fromLog.mode !== init.mode) journal.append({ type: "mode", mode: init.mode });
  if (JSON.stringify(fromLog.model) !== JSON.stringify(init.model)) journal.append({ type: "model", model: init.model });
  return { journal, mode: init.mode, model: init.model, turns: journal.turns };
}
