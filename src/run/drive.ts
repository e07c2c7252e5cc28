// Drives N sessions at once through one HostClient: each creates its session, then sends its prompts in turn.
import type { StopReason } from "@agentclientprotocol/sdk/unstable";
import type { HostClient } from "../client/host-client.js";

export interface DriveOptions {
  sessions: number;
  prompt: string;
  /** Prompts per session, sent one after another. */
  turns: number;
  cwd: string;
  mode?: string;
  /** Called after each prompt settles (or a session fails to start). */
  onProgress?: (progress: DriveProgress) => void;
}

export interface DriveProgress {
  /** Prompts settled (answered or failed) so far, of `total`. */
  done: number;
  total: number;
  failed: number;
}

export interface SessionRun {
  /** 1-based, in the order the sessions were requested. */
  index: number;
  sessionId: string | null;
  /** The last turn's stop reason, or "error" when session/new or a prompt failed. */
  stopReason: StopReason | "error";
  newSessionMs: number | null;
  /** Latency of each prompt, in order. */
  promptMs: number[];
  /** The last answer's text. */
  answer: string;
  error: string | null;
}

export async function driveSessions(client: HostClient, options: DriveOptions): Promise<SessionRun[]> {
  const progress: DriveProgress = { done: 0, total: options.sessions * options.turns, failed: 0 };
  const settle = (prompts: number, failed: boolean) => {
    progress.done += prompts;
    if (failed) progress.failed++;
    options.onProgress?.({ ...progress });
  };
  const one = async (index: number): Promise<SessionRun> => {
    const run: SessionRun = {
      index,
      sessionId: null,
      stopReason: "error",
      newSessionMs: null,
      promptMs: [],
      answer: "",
      error: null,
    };
    let started = performance.now();
    try {
      const session = await client.newSession(options.cwd, options.mode ? { mode: options.mode } : {});
      run.newSessionMs = performance.now() - started;
      run.sessionId = session.sessionId;
      for (let turn = 0; turn < options.turns; turn++) {
        started = performance.now();
        const result = await client.prompt(session.sessionId, options.prompt);
        run.promptMs.push(performance.now() - started);
        run.stopReason = result.stopReason;
        run.answer = result.text;
        settle(1, false);
      }
    } catch (error) {
      run.stopReason = "error";
      run.error = describe(error);
      settle(options.turns - run.promptMs.length, true);
    }
    return run;
  };
  return Promise.all(Array.from({ length: options.sessions }, (_, i) => one(i + 1)));
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "number" ? `${error.message} (${code})` : error.message;
  }
  if (typeof error === "object" && error !== null && "message" in error)
    return String((error as { message: unknown }).message);
  return String(error);
}
