// What a tool is to the agent loop. Tools register in tools/registry.ts; the host never sees them.
import type { z } from "zod/mini";
import type { PlanEntry } from "../../src/protocol/plan.js";
import type { SessionModeId, ToolKind } from "../../src/protocol/port.js";
import type { Span } from "../trace/span.js";

/** The JSON Schema a model is offered for a tool, made from its zod input schema. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ToolResult {
  output: string;
  isError: boolean;
}

export interface ToolContext {
  readonly cwd: string;
  readonly mode: SessionModeId;
  readonly signal: AbortSignal;
  readonly turnId: string;
  readonly toolCallId: string;
  /** The call's span in a traced turn (a command runs as a child of it; a child session's turn hangs under it). */
  readonly trace: Span | null;
  /** Streams output produced since the previous call (a delta, never the accumulated whole). */
  emitOutput(delta: string): void;
  /**
   * null while the client keeps up with the output; else a promise that settles once it has room again (or the turn
   * is cancelled), until which a tool that streams should read no more of its output.
   */
  outputRoom(): Promise<void> | null;
  /** Journals and shows the agent's whole plan (update_plan). */
  showPlan(entries: PlanEntry[]): void;
}

/** How a mode treats a tool call: run it, ask the client first, or refuse it with a reason. */
export type ToolPolicy = { decision: "allow" } | { decision: "ask" } | { decision: "refuse"; reason: string };

export interface Tool<Input = unknown> {
  readonly name: string;
  readonly description: string;
  readonly kind: ToolKind;
  /** A z.lazy: built on the tool's first call or its first offer to a model, which a session may never make. */
  readonly input: z.ZodMiniType<Input>;
  /** The JSON Schema offered to the model when it is not made from `input` (an MCP server's own schema). */
  readonly parameters?: Record<string, unknown>;
  /** Calls of it in one answer run at once (each is a child session's turn); others run one after another. */
  readonly concurrent?: boolean;
  title(input: Input): string;
  policy(mode: SessionModeId): ToolPolicy;
  run(input: Input, context: ToolContext): Promise<ToolResult>;
}

/** Tools that come and go while the session runs (its MCP servers'). */
export interface ToolSource {
  /** Resolves once the tools are current: servers still starting have connected or timed out, changed lists re-read. */
  prepare(signal: AbortSignal): Promise<void>;
  tools(): readonly Tool[];
  /** The session's mode changed (a server's sandbox follows it). */
  setMode(mode: SessionModeId): void;
  /** The host restarted its spawner (the old one took its processes with it): start them again through the new one. */
  spawnerRestarted(): void;
  /** Resolves once its connections are closed (http servers told the session ended), or has given up on that. */
  close(): Promise<void>;
}
