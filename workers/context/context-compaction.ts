// Keeps a session's conversation inside its model's context window. Before each request it estimates the request's
// size (the prompt tokens the provider reported for the last request, plus an estimate of the messages added since;
// an estimate of everything when there is no report yet). Above compactAt of the window it compacts: the model
// writes a summary of the older part (one extra request, whose usage is reported), which replaces that part. The
// compaction is journaled (the history rebuilt from the log is the same) and reported as it goes (compaction events:
// started, then completed with its summary, or failed, or cancelled with its turn).
// When the provider still answers "context length exceeded", it compacts harder once (every turn before the one in
// flight; see compaction-plan.ts) and retries; then the turn fails with an error naming the sizes, and the
// conversation is left compacted for the next prompt. No level ever summarises the turn in flight. A limit the
// provider names in that answer is smaller than the configured window (a local server started with less): it is
// taken as the window from then on, until a request larger than it succeeds.
import { foldLog } from "../../src/protocol/log/session-state.js";
import type { EventSink } from "../event-sink.js";
import type { Journal } from "../log/journal.js";
import type { SpanParent } from "../trace/span.js";
import { compactionNotice } from "../../src/protocol/log/compaction-notice.js";
import { planCompaction, type CompactionLevel } from "./compaction-plan.js";
import {
  ContextOverflow,
  ModelError,
  type ChatMessage,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
} from "../models/model.js";
import { summaryInput, summaryText, summaryWords } from "./summary-request.js";
import { estimateMessages, estimateRequest } from "./token-estimate.js";

export interface ContextCompactorOptions {
  journal: Journal;
  events: EventSink;
  /** Fraction of the context window above which a request is compacted first. */
  compactAt: number;
  /** Journals and reports a response's usage (the summary requests' too). */
  reportUsage(turnId: string, usage: ModelUsage | undefined): void;
}

export interface ContextRequest extends Omit<ModelRequest, "messages"> {
  turnId: string;
  /** A compaction's span opens under this (a traced turn); the summary request's chat span under it. */
  trace: SpanParent | null;
  model: Model;
  /** The session's conversation; a compaction replaces its contents in place. */
  history: ChatMessage[];
}

export class ContextCompactor {
  readonly #options: ContextCompactorOptions;
  /** The prompt tokens the provider counted for a request that carried history[0, length). */
  #measured: { tokens: number; length: number } | null = null;
  /** The context length the provider named when it refused a request. */
  #learned: number | null = null;

  constructor(options: ContextCompactorOptions) {
    this.#options = options;
  }

  async complete(request: ContextRequest): Promise<ModelResponse> {
    if (request.model.contextWindow === null) return this.#send(request);
    if (this.#estimate(request) > this.#budget(request)) {
      await this.#compact(request, "normal");
      if (this.#estimate(request) > this.#budget(request)) await this.#compact(request, "hard");
    }
    try {
      return await this.#send(request);
    } catch (error) {
      if (!(error instanceof ContextOverflow)) throw error;
      this.#learn(error);
      if (!(await this.#compact(request, "hard"))) throw this.#tooLarge(error, request);
      try {
        return await this.#send(request);
      } catch (again) {
        if (!(again instanceof ContextOverflow)) throw again;
        this.#learn(again);
        throw this.#tooLarge(again, request);
      }
    }
  }

  async #send(request: ContextRequest): Promise<ModelResponse> {
    const { model, history } = request;
    const length = history.length;
    // Field by field, not spread: a spread would read the tools (made on first read) for a model that never does.
    const response = await model.complete({
      messages: history,
      get tools() {
        return request.tools;
      },
      signal: request.signal,
      commit: request.commit,
      onDelta: request.onDelta,
      onThought: request.onThought,
      onWaiting: request.onWaiting,
      calls: request.calls,
    });
    const usage = response.usage;
    if (usage) {
      const tokens = usage.promptTokens ?? usage.used;
      this.#measured = { tokens, length };
      if (this.#learned !== null && tokens > this.#learned) this.#learned = null;
    }
    return response;
  }

  #window(request: ContextRequest): number {
    const configured = request.model.contextWindow ?? Infinity;
    return Math.min(configured, this.#learned ?? Infinity);
  }

  #budget(request: ContextRequest): number {
    return Math.floor(this.#window(request) * this.#options.compactAt);
  }

  #learn(overflow: ContextOverflow): void {
    if (overflow.limit !== null) this.#learned = overflow.limit;
  }

  #estimate(request: ContextRequest): number {
    const measured = this.#measured;
    if (measured && measured.length <= request.history.length)
      return measured.tokens + estimateMessages(request.history.slice(measured.length));
    return estimateRequest(request.history, request.tools);
  }

  /** Returns false when nothing could be summarised at this level. */
  async #compact(request: ContextRequest, level: CompactionLevel): Promise<boolean> {
    const { history, turnId, signal, tools } = request;
    const { events } = this.#options;
    const tokensBefore = this.#estimate(request);
    // The compaction entry counts kept messages on the history rebuilt from the log; the live one can hold what the
    // log does not (the "not run" results of a cancelled turn), so the cut is made on the rebuilt one.
    const journal = this.#options.journal;
    history.splice(0, history.length, ...foldLog(journal.base(), journal.entries()).history);
    const plan = planCompaction(history, level, this.#budget(request));
    if (!plan) return false;
    const compactionId = crypto.randomUUID();
    events.post({ type: "compaction", turnId, compactionId, status: "in_progress" });
    const span =
      request.trace?.open("compact_context", "internal", {
        "acp_host.compaction.id": compactionId,
        "acp_host.compaction.level": level,
        "acp_host.compaction.tokens_before": tokensBefore,
      }) ?? null;
    let answer: ModelResponse;
    try {
      answer = await this.#summarise(
        { ...request, calls: request.calls?.under(span) },
        history.slice(0, plan.cut),
        summaryWords(plan.summaryTokens),
      );
      signal.throwIfAborted();
    } catch (failure) {
      const error = failure instanceof ContextOverflow ? this.#tooLarge(failure, request) : failure;
      // Not the error's message: a model's failure quotes its provider (the compaction event carries it).
      if (signal.aborted) span?.fail("cancelled", "the turn was cancelled").end();
      else span?.fail("compaction_failed", "the summary request failed").end();
      if (signal.aborted) events.post({ type: "compaction", turnId, compactionId, status: "cancelled" });
      else
        events.post({
          type: "compaction",
          turnId,
          compactionId,
          status: "failed",
          error: error instanceof Error ? error.message : String(error),
        });
      throw error;
    }
    this.#options.reportUsage(turnId, answer.usage);
    const summary = summaryText(answer.blocks.join(""), plan.summaryTokens);
    const compacted: ChatMessage[] = [{ role: "summary", text: summary }, ...history.slice(plan.cut)];
    const entry = {
      type: "compaction" as const,
      turnId,
      kept: history.length - plan.cut,
      summary,
      turns: plan.turns,
      tokensBefore,
      tokensAfter: estimateRequest(compacted, tools),
      level,
      replacedTokens: plan.replacedTokens,
      compactionId,
    };
    this.#options.journal.append(entry);
    history.splice(0, history.length, ...compacted);
    this.#measured = null;
    span?.set("acp_host.compaction.tokens_after", entry.tokensAfter).end();
    events.post({
      type: "compaction",
      turnId,
      compactionId,
      status: "completed",
      summary,
      notice: compactionNotice(entry),
    });
    return true;
  }

  /** The summary request; its input is fitted again (once) when the provider names a smaller window. */
  async #summarise(request: ContextRequest, prefix: ChatMessage[], maxWords: number): Promise<ModelResponse> {
    const { model, tools, signal, calls } = request;
    // A summary is never shown: nothing of it is committed (only the scripted model commits mid-response, and it
    // has no context window to manage).
    const commit = () => Promise.resolve();
    // What the request carries besides the conversation (system prompt, tools) does not shrink.
    const room = (budget: number) => Math.max(0, budget - estimateRequest([], tools));
    try {
      return await model.complete({
        messages: summaryInput(prefix, room(this.#budget(request)), maxWords),
        tools,
        signal,
        commit,
        calls,
      });
    } catch (error) {
      if (!(error instanceof ContextOverflow) || error.limit === null) throw error;
      this.#learn(error);
      return await model.complete({
        messages: summaryInput(prefix, room(this.#budget(request)), maxWords),
        tools,
        signal,
        commit,
        calls,
      });
    }
  }

  #tooLarge(overflow: ContextOverflow, request: ContextRequest): ModelError {
    const estimate = estimateRequest(request.history, request.tools);
    return new ModelError(
      `${overflow.message} — the conversation does not fit even after compacting it: the request is about ${estimate} tokens (estimated), the context window is ${this.#window(request)} tokens`,
    );
  }
}
