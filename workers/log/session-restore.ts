// What a session worker starts from: a fresh in-memory journal, or the session's log restored with load-repair (a log
// file in the state dir, or the records a store the host writes handed over), together with the mode and model the
// session runs with from now on.
import { emptyState, foldSummary, type SessionSummary } from "../../src/protocol/log/session-state.js";
import type { ModelConfig, SessionModeId, WorkerInit } from "../../src/protocol/port.js";
import { LogError, type LogEntry } from "../../src/protocol/log/session-log.js";
import { sameSystemPrompt, type SystemPromptSetting } from "../../src/protocol/system-prompt.js";
import type { EventSink } from "../event-sink.js";
import { FileJournal } from "./journal-file.js";
import { RecordJournal } from "./journal-records.js";
import { MemoryJournal, type Journal } from "./journal.js";

export interface RestoredSession {
  journal: Journal;
  mode: SessionModeId;
  model: ModelConfig;
  systemPrompt: SystemPromptSetting | null;
  turns: number;
}

/** Throws LogError (its message names the log and says why) when the log is not a usable log of this session. */
export function restoreSession(init: WorkerInit, events: EventSink): RestoredSession {
  const log = init.log;
  if (!log)
    return {
      journal: new MemoryJournal(emptyState(init)),
      mode: init.mode,
      model: init.model,
      systemPrompt: init.systemPrompt ?? null,
      turns: 0,
    };
  let journal: FileJournal | RecordJournal;
  let repair: { droppedBytes: number; appended: readonly LogEntry[] };
  const where = log.kind === "dir" ? `session log ${log.path}` : `the stored log of session ${init.sessionId}`;
  try {
    if (log.kind === "dir") {
      const { path, sidecarPath, compactingPath, restorePointPath, compactBytes } = log;
      journal = FileJournal.open(
        {
          path,
          sidecarPath,
          compactingPath,
          restorePointPath,
          compactBytes,
          log: (level, msg, data) => events.log(level, msg, data),
        },
        init.sessionId,
      );
      repair = journal.repair;
    } else {
      journal = RecordJournal.open(log, init.sessionId, events);
      repair = { droppedBytes: 0, appended: journal.repairs };
    }
  } catch (error) {
    if (error instanceof LogError) throw new LogError(`${where} cannot be used: ${error.message}`);
    throw error;
  }
  const { droppedBytes, appended } = repair;
  if (droppedBytes > 0 || appended.length > 0) {
    events.log("warn", "session log repaired", {
      droppedBytes,
      interruptedTurns: appended.filter((entry) => entry.type === "turn_end").length,
      unansweredToolCalls: appended.filter((entry) => entry.type === "tool_result").length,
    });
  }
  const fromLog = journal.entries().reduce<SessionSummary>(foldSummary, journal.base());
  // A system prompt the client gave now replaces the log's, whichever side's mode and model win.
  const systemPrompt = init.systemPrompt ?? fromLog.systemPrompt;
  if (!sameSystemPrompt(systemPrompt, fromLog.systemPrompt) && systemPrompt)
    journal.append({ type: "system_prompt", systemPrompt });
  if (log.settingsFrom === "log")
    return { journal, mode: fromLog.mode, model: fromLog.model, systemPrompt, turns: journal.turns };
  // The main thread's settings may have moved on while no worker held the session: they win, and are logged.
  if (fromLog.mode !== init.mode) journal.append({ type: "mode", mode: init.mode });
  if (JSON.stringify(fromLog.model) !== JSON.stringify(init.model))
    journal.append({ type: "model", model: init.model });
  return { journal, mode: init.mode, model: init.model, systemPrompt, turns: journal.turns };
}
