// The turn loop of one session: user message → model → tool calls → tool results → model … until the model
// answers without tool calls, the turn is cancelled, or it runs out of model requests.
import { foldLog } from "../../src/protocol/log/session-state.js";
import type { PlanEntry } from "../../src/protocol/plan.js";
import type { HostMessage, PermissionOutcome, SessionModeId, StopReason, ToolKind } from "../../src/protocol/port.js";
import { ChunkRelay } from "./chunk-relay.js";
import { ContextCompactor } from "../context/context-compaction.js";
import type { EventSink } from "../event-sink.js";
import { LogWriteError, type Journal } from "../log/journal.js";
import {
  BudgetReached,
  ModelError,
  ProviderBusy,
  PromptRejected,
  type ChatMessage,
  type Model,
  type ModelResponse,
  type ModelUsage,
  type ToolCallRequest,
} from "../models/model.js";
import { checkToolInput } from "./tool-input.js";
import { tokenCounts, UsageTotals } from "../log/usage-totals.js";
import { BUDGET_REACHED, type Budget } from "../../src/protocol/budget.js";
import type { TokenCounts } from "../../src/protocol/log/session-state.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolResult } from "../tools/tool.js";
import { PROMPT_IN_FLIGHT_MESSAGE, type ErrorReason } from "../../src/protocol/errors.js";
import { ModelCalls } from "../models/model-calls.js";
import { traceRoot, type Span, type SpanParent } from "../trace/span.js";

export interface AgentLoopOptions {
  model: Model;
  tools: ToolRegistry;
  events: EventSink;
  journal: Journal;
  mode: SessionModeId;
  cwd: string;
  maxTurnRequests: number;
  /** Tool calls one prompt may run; the calls past it are not run and the turn ends max_turn_requests. */
  maxTurnToolCalls: number;
  /** Fraction of the model's context window above which the conversation is compacted before a request. */
  compactAt: number;
  /** Send message and thought text as it arrives (--stream-chunks). */
  streamChunks: boolean;
}

type PromptMessage = Extract<HostMessage, { type: "prompt" }>;

interface Turn {
  id: string;
  abort: AbortController;
  /** Tool calls run so far in this turn (--max-turn-tool-calls). */
  toolCalls: number;
  /** The text of the last assistant message committed in this turn (a child's answer to its parent). */
  lastMessage: string;
  /** turn_end carries lastMessage (a child's turn). */
  answersLastMessage: boolean;
  /** The turn's spans hang under this (the host's invoke_agent span); null: the turn is not traced. */
  trace: SpanParent | null;
  /** Its spans may hold tool arguments, results and model output (--trace-content). */
  traceContent: boolean;
  calls: ModelCalls;
}

const FINISH_STOP: Record<ModelResponse["finish"], StopReason | null> = {
  stop: "end_turn",
  tool_calls: null,
  length: "max_tokens",
  content_filter: "refusal",
};

export class AgentLoop {
  readonly #options: AgentLoopOptions;
  readonly #history: ChatMessage[];
  readonly #permissions = new Map<string, (outcome: PermissionOutcome) => void>();
  readonly #alwaysAllowed = new Set<string>();
  readonly #context: ContextCompactor;
  readonly #usage: UsageTotals;
  readonly #budget: Budget | null;
  #model: Model;
  #mode: SessionModeId;
  #turn: Turn | null = null;
  #running: Promise<void> = Promise.resolve();
  /** The log could not be written: this worker takes no more turns. */
  #logFailure: LogWriteError | null = null;

  constructor(options: AgentLoopOptions) {
    this.#options = options;
    this.#model = options.model;
    this.#mode = options.mode;
    const restored = foldLog(options.journal.base(), options.journal.entries());
    this.#history = restored.history;
    for (const name of restored.alwaysAllowed) this.#alwaysAllowed.add(name);
    this.#usage = new UsageTotals(restored.usage);
    this.#budget = restored.budget;
    this.#context = new ContextCompactor({
      journal: options.journal,
      events: options.events,
      compactAt: options.compactAt,
      reportUsage: (turnId, usage) => this.#reportUsage(turnId, usage),
    });
  }

  /** Its tree's budget as its log holds it (the header's, or the last budget entry's); null: none. */
  get budget(): Budget | null {
    return this.#budget;
  }

  /** Tokens the session has spent since it was created (its log's sums, then every response's). */
  get spent(): number {
    return this.#usage.spent;
  }

  /** The session's token sums since it was created. */
  get usage(): TokenCounts {
    return this.#usage.sums;
  }

  get mode(): SessionModeId {
    return this.#mode;
  }

  setMode(mode: SessionModeId): void {
    if (mode === this.#mode) return;
    this.#mode = mode;
    this.#options.journal.append({ type: "mode", mode });
    this.#options.tools.setMode(mode);
  }

  setModel(model: Model): void {
    this.#model = model;
  }

  /**
   * Starts a turn; a prompt it cannot take ends at once with a turn_error that says why. cancelled: the host cancelled
   * it before this worker had it: it starts cancelled (its prompt and its cancelled end are journaled).
   */
  prompt({ turnId, text, trace, traceContent = false, lastMessage = false, cancelled }: PromptMessage): void {
    const refuse = (reason: ErrorReason, message: string) =>
      this.#options.events.post({ type: "turn_error", turnId, reason, message });
    if (this.#logFailure) return this.#endsForLog(turnId, this.#logFailure);
    if (this.#turn) return refuse("PROMPT_IN_FLIGHT", PROMPT_IN_FLIGHT_MESSAGE);
    try {
      this.#model.check(text);
    } catch (error) {
      if (error instanceof PromptRejected) return refuse("PROMPT_REJECTED", error.message);
      throw error;
    }
    const events = this.#options.events;
    const post = events.post.bind(events);
    const root = traceRoot(trace ?? null, (span) => post({ type: "spans", spans: [span] }));
    const turn: Turn = {
      id: turnId,
      abort: new AbortController(),
      toolCalls: 0,
      lastMessage: "",
      answersLastMessage: lastMessage,
      trace: root,
      traceContent,
      calls: new ModelCalls(post, root, traceContent),
    };
    this.#turn = turn;
    if (cancelled) turn.abort.abort(cancelled.reason === undefined ? undefined : new Error(cancelled.reason));
    this.#running = this.#run(turn, text);
  }

  /** reason: why the host cancelled the turn (a timeout), recorded with its end; none for a client's cancel. */
  cancel(turnId: string, reason?: string): void {
    if (this.#turn?.id !== turnId) return;
    this.#turn.abort.abort(reason === undefined ? undefined : new Error(reason));
    for (const settle of this.#permissions.values()) settle({ outcome: "cancelled" });
  }

  /** Cancels the turn in flight, if any, and resolves once it has ended (its end is in the journal). */
  async stop(): Promise<void> {
    if (this.#turn) this.cancel(this.#turn.id);
    await this.#running;
  }

  resolvePermission(requestId: string, outcome: PermissionOutcome): void {
    this.#permissions.get(requestId)?.(outcome);
  }

  /**
   * A log that cannot be written ends the turn with an error that says so; this worker's memory of the session may
   * then hold what the log does not, so it takes no other turn: the host ends it, and the next prompt restores the
   * session from the log in a fresh worker. (Thrown uncaught instead, the error raced the host's terminate.)
   */
  async #run(turn: Turn, text: string): Promise<void> {
    try {
      await this.#runTurn(turn, text);
    } catch (error) {
      if (this.#turn === turn) this.#turn = null;
      if (!(error instanceof LogWriteError)) throw error;
      this.#logFailure = error;
      this.#endsForLog(turn.id, error);
      this.#options.events.flush();
    }
  }

  /** Fails a turn for the log that could not be written, saying this worker ends. */
  #endsForLog(turnId: string, error: LogWriteError): void {
    this.#options.events.post({
      type: "turn_error",
      turnId,
      reason: "LOG_WRITE_FAILED",
      message: error.message,
      workerEnds: true,
    });
  }

  async #runTurn(turn: Turn, text: string): Promise<void> {
    const { journal, events } = this.#options;
    const turnId = turn.id;
    const signal = turn.abort.signal;
    const untitled = journal.title === null;
    journal.append(
      { type: "turn_start", turnId, at: new Date().toISOString() },
      { type: "user_message", turnId, text },
    );
    events.post({ type: "user_message", turnId, text });
    if (untitled && journal.title !== null) events.post({ type: "title", turnId, title: journal.title });
    this.#history.push({ role: "user", text });
    let ending: { stopReason: StopReason; budget?: true } | { reason: ErrorReason; message: string };
    try {
      ending = { stopReason: await this.#loop(turn) };
    } catch (error) {
      if (error instanceof LogWriteError) throw error;
      if (signal.aborted) ending = { stopReason: "cancelled" };
      else if (error instanceof BudgetReached) ending = { stopReason: "max_tokens", budget: true };
      else if (error instanceof ProviderBusy) ending = { reason: "PROVIDER_BUSY", message: error.message };
      else if (error instanceof ModelError) ending = { reason: "MODEL_FAILED", message: error.message };
      else
        ending = { reason: "TURN_FAILED", message: `agent loop failed: ${(error as Error).message ?? String(error)}` };
    }
    this.#turn = null;
    if ("stopReason" in ending) {
      // A turn the host cancelled (a timeout) says why in its log; a client's cancel has no reason to record.
      const reason: unknown = ending.stopReason === "cancelled" ? signal.reason : undefined;
      const why = reason instanceof Error && reason.name !== "AbortError" ? { error: reason.message } : {};
      journal.append({ type: "turn_end", turnId, stopReason: ending.stopReason, ...why });
    } else {
      journal.append({ type: "turn_end", turnId, stopReason: "error", error: ending.message });
    }
    // What the turn showed goes out before the fsync holds this thread: the main thread hands it on meanwhile.
    events.flush();
    journal.endTurn();
    if (!("stopReason" in ending))
      events.post({ type: "turn_error", turnId, reason: ending.reason, message: ending.message });
    else {
      const budget = ending.budget ? ({ reason: BUDGET_REACHED } as const) : {};
      if (turn.answersLastMessage)
        events.post({
          type: "turn_end",
          turnId,
          stopReason: ending.stopReason,
          lastMessage: turn.lastMessage,
          ...budget,
        });
      else events.post({ type: "turn_end", turnId, stopReason: ending.stopReason, ...budget });
    }
  }

  async #loop(turn: Turn): Promise<StopReason> {
    const signal = turn.abort.signal;
    for (let requests = 0; ; requests++) {
      if (signal.aborted) return "cancelled";
      if (requests >= this.#options.maxTurnRequests) return "max_turn_requests";
      // MCP servers still starting are waited for (up to --mcp-startup-timeout-ms), changed tool lists re-read.
      await this.#options.tools.prepare(signal);
      // A client that has not taken the output so far gets no more until it does: the turn waits here.
      await this.#options.events.room(signal);
      if (signal.aborted) return "cancelled";
      const relay = new ChunkRelay(this.#options.events, turn.id, signal, this.#options.streamChunks);
      const registry = this.#options.tools;
      const response = await this.#context.complete({
        turnId: turn.id,
        model: this.#model,
        history: this.#history,
        // Read only by a model that offers tools (the scripted one does not): a tool's JSON Schema is made from its
        // zod schema on first use, milliseconds a fresh worker's first turn would pay for nothing.
        get tools() {
          return registry.specs();
        },
        signal,
        calls: turn.calls,
        trace: turn.trace,
        ...relay.callbacks(),
        onWaiting: ({ what, untilMs }) =>
          this.#options.events.postUnnumbered({ type: "provider_wait", turnId: turn.id, what, untilMs }),
        commit: (blocks) => this.#commitAssistant(turn, { blocks, toolCalls: [] }, relay),
      });
      if (signal.aborted) return "cancelled";
      if (isEmpty(response)) {
        // After tool results an empty answer is an ordinary way to end (scripts ending in a tool step, and real models,
        // do it); only a turn whose first answer is empty is worth a warning.
        if (requests === 0)
          this.#options.events.log("warn", "the model answered with nothing (no text, no tool calls): the turn ends", {
            model: this.#model.name,
          });
        this.#reportUsage(turn.id, response.usage);
        return FINISH_STOP[response.finish] ?? "end_turn";
      }
      await this.#commitAssistant(turn, response, relay);
      const stop = FINISH_STOP[response.finish];
      if (stop || response.toolCalls.length === 0) return stop ?? "end_turn";
      let limitReached = false;
      // Calls of a tool that runs at once with its kind (spawn_agent) start together; any other call waits for them
      // and runs alone. Results join the history as they come, in the order the log has them.
      let together: Array<Promise<void>> = [];
      for (const call of response.toolCalls) {
        const concurrent = this.#options.tools.get(call.name)?.concurrent === true;
        if (!concurrent) {
          await settled(together);
          together = [];
        }
        limitReached ||= turn.toolCalls >= this.#options.maxTurnToolCalls;
        if (signal.aborted) this.#notRun(turn, call, "tool call not run: the turn was cancelled");
        else if (limitReached)
          this.#notRun(
            turn,
            call,
            `tool call not run: this turn reached --max-turn-tool-calls ${this.#options.maxTurnToolCalls}`,
          );
        else {
          turn.toolCalls++;
          const run = this.#runTool(turn, call).then((result) => {
            this.#history.push({
              role: "tool",
              toolCallId: call.id,
              name: call.name,
              result: result.output,
              isError: result.isError,
            });
          });
          if (concurrent) together.push(run);
          else await run;
        }
      }
      await settled(together);
      if (limitReached) return "max_turn_requests";
    }
  }

  /** A call of the model's answer that never ran: its result is journaled, so a restored history is the same. */
  #notRun(turn: Turn, call: ToolCallRequest, why: string): void {
    const entry = { toolCallId: crypto.randomUUID(), callId: call.id, name: call.name, result: why, isError: true };
    this.#options.journal.append({ type: "tool_result", turnId: turn.id, ...entry });
    this.#history.push({ role: "tool", toolCallId: call.id, name: call.name, result: why, isError: true });
  }

  /** Journaled at once; resolves once what it sends has room (the client has taken enough of what went before). */
  async #commitAssistant(
    turn: Turn,
    response: Pick<ModelResponse, "blocks" | "toolCalls" | "usage" | "thought">,
    relay: ChunkRelay,
  ): Promise<void> {
    const turnId = turn.id;
    const thought = response.thought ? { thought: response.thought } : {};
    const text = response.blocks.join("");
    if (text.length > 0) turn.lastMessage = text;
    this.#options.journal.append({
      type: "assistant_message",
      turnId,
      blocks: response.blocks,
      toolCalls: response.toolCalls,
      ...thought,
    });
    this.#history.push({ role: "assistant", blocks: response.blocks, toolCalls: response.toolCalls, ...thought });
    await relay.commit(response);
    this.#reportUsage(turnId, response.usage);
  }

  #reportUsage(turnId: string, usage: ModelUsage | undefined): void {
    if (!usage) return;
    const tokens = tokenCounts(usage);
    this.#options.journal.append({ type: "usage", turnId, tokens });
    const session = this.#usage.add(tokens);
    this.#options.events.post({ type: "usage", turnId, used: usage.used, size: usage.size, tokens, session });
  }

  async #runTool(turn: Turn, call: ToolCallRequest): Promise<ToolResult> {
    const { journal, events, tools, cwd } = this.#options;
    const turnId = turn.id;
    const toolCallId = crypto.randomUUID();
    const checked = checkToolInput(call, tools.get(call.name), tools.names());
    const title = checked.ok ? checked.tool.title(checked.input) : call.name;
    const kind = checked.ok ? checked.tool.kind : "other";
    journal.append({
      type: "tool_call",
      turnId,
      toolCallId,
      callId: call.id,
      name: call.name,
      title,
      kind,
      input: call.input,
    });
    events.post({
      type: "tool_call",
      turnId,
      toolCallId,
      name: call.name,
      title,
      kind,
      status: "pending",
      rawInput: call.input,
    });
    const span = toolSpan(turn, call, toolCallId, kind);

    const finish = (result: ToolResult): ToolResult => {
      if (span) {
        if (turn.traceContent) span.set("gen_ai.tool.call.result", result.output);
        if (result.isError) span.fail("tool_error", "the tool call failed");
        span.end();
      }
      journal.append({
        type: "tool_result",
        turnId,
        toolCallId,
        callId: call.id,
        name: call.name,
        result: result.output,
        isError: result.isError,
      });
      events.post({
        type: "tool_call_update",
        turnId,
        toolCallId,
        status: result.isError ? "failed" : "completed",
        result: result.output,
      });
      return result;
    };
    if (!checked.ok) return finish({ output: checked.error, isError: true });
    const { tool } = checked;

    const policy = tool.policy(this.#mode);
    if (policy.decision === "refuse") return finish({ output: policy.reason, isError: true });
    if (policy.decision === "ask" && !this.#alwaysAllowed.has(tool.name)) {
      span?.event("acp_host.permission.asked");
      const outcome = await this.#askPermission(turn, toolCallId, title, kind, call.input);
      span?.event("acp_host.permission.answered", {
        "acp_host.permission.outcome": outcome.outcome === "selected" ? outcome.optionId : "cancelled",
      });
      journal.append({
        type: "permission",
        turnId,
        toolCallId,
        outcome: outcome.outcome === "selected" ? outcome.optionId : "cancelled",
      });
      if (outcome.outcome === "cancelled")
        return finish({ output: "the user cancelled this tool call", isError: true });
      if (outcome.optionId === "reject_once")
        return finish({ output: "the user refused this tool call", isError: true });
      if (outcome.optionId === "allow_always") this.#alwaysAllowed.add(tool.name);
    }
    if (turn.abort.signal.aborted)
      return finish({ output: "tool call not run: the turn was cancelled", isError: true });

    await events.room(turn.abort.signal);
    if (turn.abort.signal.aborted)
      return finish({ output: "tool call not run: the turn was cancelled", isError: true });
    events.post({ type: "tool_call_update", turnId, toolCallId, status: "in_progress" });
    try {
      const result = await tool.run(checked.input, {
        cwd,
        mode: this.#mode,
        signal: turn.abort.signal,
        turnId,
        toolCallId,
        trace: span,
        emitOutput: (delta) => {
          if (delta.length > 0) events.post({ type: "tool_call_update", turnId, toolCallId, outputDelta: delta });
        },
        outputRoom: () => (events.behind ? events.room(turn.abort.signal) : null),
        showPlan: (entries) => this.#showPlan(turnId, entries),
      });
      return finish(result);
    } catch (error) {
      return finish({ output: `${call.name} failed: ${(error as Error).message}`, isError: true });
    }
  }

  /** Journaled before it is shown, like every entry: session/load replays the plan as the client saw it. */
  #showPlan(turnId: string, entries: PlanEntry[]): void {
    this.#options.journal.append({ type: "plan", turnId, entries });
    this.#options.events.post({ type: "plan", turnId, entries });
  }

  #askPermission(
    turn: Turn,
    toolCallId: string,
    title: string,
    kind: ToolKind,
    rawInput: unknown,
  ): Promise<PermissionOutcome> {
    if (turn.abort.signal.aborted) return Promise.resolve({ outcome: "cancelled" });
    const requestId = crypto.randomUUID();
    return new Promise<PermissionOutcome>((resolve) => {
      this.#permissions.set(requestId, (outcome) => {
        this.#permissions.delete(requestId);
        resolve(outcome);
      });
      this.#options.events.post({
        type: "permission_request",
        turnId: turn.id,
        requestId,
        toolCallId,
        title,
        kind,
        rawInput,
      });
    });
  }
}

/** A traced turn's span of one tool call (execute_tool), its arguments only where the host records content. */
function toolSpan(turn: Turn, call: ToolCallRequest, toolCallId: string, kind: ToolKind): Span | null {
  if (!turn.trace) return null;
  const span = turn.trace.open(`execute_tool ${call.name}`, "internal", {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": call.name,
    "gen_ai.tool.call.id": call.id,
    "gen_ai.tool.type": "function",
    "acp_host.tool_call.id": toolCallId,
    "acp_host.tool.kind": kind,
  });
  return turn.traceContent ? span.set("gen_ai.tool.call.arguments", JSON.stringify(call.input ?? null)) : span;
}

/** Waits for every call running together; the first failure (a log that cannot be written) is thrown. */
async function settled(running: ReadonlyArray<Promise<void>>): Promise<void> {
  const failed = (await Promise.allSettled(running)).find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
}

/** An answer with no text and no tool calls (its reasoning, if any, is not an answer). */
function isEmpty(response: ModelResponse): boolean {
  return response.toolCalls.length === 0 && response.blocks.every((block) => block.length === 0);
}
