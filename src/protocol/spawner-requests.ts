// The session channel, session worker → spawner (see spawner-control.ts): parsed by the spawner.
import * as z from "zod/mini";
import { CallId } from "./spawner-replies.js";

/** How a command is confined: bwrap read-only, bwrap workspace-write, or not at all (full-access). */
export const SandboxKind = z.enum(["read-only", "workspace-write", "none"]);
export type SandboxKind = z.infer<typeof SandboxKind>;

const TaskId = z.string().check(z.minLength(1), z.maxLength(200));

export const WorkerRequest = z.discriminatedUnion("op", [
  z.object({ op: z.literal("hello"), token: z.string().check(z.minLength(1), z.maxLength(200)) }),
  z.object({
    op: z.literal("run"),
    id: CallId,
    command: z.string().check(z.minLength(1), z.maxLength(1024 * 1024)),
    sandbox: SandboxKind,
    /** Foreground only: the command's group is killed after this long. */
    timeoutMs: z.nullable(z.int().check(z.positive())),
    background: z.boolean(),
    /**
     * Foreground only: how much output is sent as it comes, and how much of the end is kept after that. Output past
     * the first `forwardBytes` is not sent (the output file has it); the last `tailBytes` of it come with `exited`.
     */
    forwardBytes: z._default(z.int().check(z.positive()), 1024 * 1024 + 1),
    tailBytes: z._default(z.int().check(z.nonnegative()), 0),
  }),
  /** Ends a foreground run of this connection (the turn was cancelled). */
  z.object({ op: z.literal("cancel"), id: CallId }),
  /** Output of a background task since the previous read, and its state. */
  z.object({ op: z.literal("read"), id: CallId, taskId: TaskId }),
  z.object({ op: z.literal("kill"), id: CallId, taskId: TaskId }),
  /**
   * Starts a long-lived program with its stdin and stdout streamed over this connection (an MCP stdio server):
   * argv as given, env the given one over the spawner's minimal base, in the session's workspace and sandbox. It is
   * this connection's: it ends with it, or with close_stdio, or with the session.
   */
  z.object({
    op: z.literal("open_stdio"),
    id: CallId,
    command: z.string().check(z.minLength(1), z.maxLength(4096)),
    args: z.array(z.string().check(z.maxLength(64 * 1024))).check(z.maxLength(1024)),
    env: z.record(z.string().check(z.minLength(1), z.maxLength(1024)), z.string().check(z.maxLength(64 * 1024))),
    sandbox: SandboxKind,
  }),
  z.object({ op: z.literal("stdin"), id: CallId, data: z.string().check(z.maxLength(64 * 1024 * 1024)) }),
  z.object({ op: z.literal("close_stdio"), id: CallId }),
]);
export type WorkerRequest = z.infer<typeof WorkerRequest>;
/** What a worker may send: fields with defaults may be left out. */
export type WorkerRequestInput = z.input<typeof WorkerRequest>;
