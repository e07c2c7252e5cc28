// The session channel, spawner → session worker (see spawner-control.ts): parsed by the worker.
import * as z from "zod/mini";

/** A worker's id of one request, echoed by every reply to it. */
export const CallId = z.string().check(z.minLength(1), z.maxLength(64));

export const EndReason = z.enum(["exited", "killed", "timeout", "sandbox_failed", "spawn_failed"]);
export type EndReason = z.infer<typeof EndReason>;

// Built on their first parse, the session's first command: a session that runs none never builds them (a session's
// thread builds every schema it holds for itself: docs/performance.md, "Measured choices in the code").
export const TaskEnd = z.lazy(() =>
  z.object({
    reason: EndReason,
    exitCode: z.nullable(z.int()),
    signal: z.nullable(z.string()),
    /** For sandbox_failed and spawn_failed: what went wrong. */
    detail: z.nullable(z.string()),
  }),
);
export type TaskEnd = z.infer<typeof TaskEnd>;

export const SpawnerReply = z.lazy(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("welcome") }),
    z.object({ type: z.literal("denied"), message: z.string() }),
    z.object({ type: z.literal("started"), id: CallId, taskId: z.string(), outputFile: z.string() }),
    /** Foreground output produced since the previous output message. */
    z.object({ type: z.literal("output"), id: CallId, data: z.string() }),
    z.object({
      type: z.literal("exited"),
      id: CallId,
      end: TaskEnd,
      totalBytes: z.int().check(z.nonnegative()),
      outputFile: z.string(),
      /** When output went unsent (past forwardBytes): its last characters, at most tailBytes of them. */
      tail: z._default(z.nullable(z.string()), null),
    }),
    z.object({
      type: z.literal("task_output"),
      id: CallId,
      taskId: z.string(),
      output: z.string(),
      /** Unread output the spawner let go of because nobody read it in time (the file still has it). */
      droppedBytes: z.int().check(z.nonnegative()),
      end: z.nullable(TaskEnd),
      outputFile: z.string(),
    }),
    z.object({ type: z.literal("task_killed"), id: CallId, taskId: z.string(), wasRunning: z.boolean(), end: TaskEnd }),
    z.object({ type: z.literal("error"), id: CallId, message: z.string() }),
    /** An open_stdio program runs; its stderr goes to stderrFile (bounded). */
    z.object({ type: z.literal("stdio_started"), id: CallId, taskId: z.string(), stderrFile: z.string() }),
    z.object({ type: z.literal("stdout"), id: CallId, data: z.string() }),
    /** It ended (its whole group is gone); stderrTail: the last of what it wrote to stderr, to say why. */
    z.object({ type: z.literal("stdio_exited"), id: CallId, end: TaskEnd, stderrTail: z.string() }),
  ]),
);
export type SpawnerReply = z.infer<typeof SpawnerReply>;
