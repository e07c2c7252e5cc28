// Assembles one streamed chat completion: text and reasoning deltas, tool calls split across chunks, finish reason,
// usage (with the cached prompt tokens, in DeepSeek's or OpenAI's field).
import { randomUUID } from "node:crypto";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { AssembledResponse, AssembledUsage } from "../../src/protocol/model-gateway.js";

export type { AssembledResponse, AssembledUsage };

/** The stream ended (cleanly or not) before a chunk carried a finish reason: the response is incomplete. */
export class StreamIncomplete extends Error {}

/** What one chunk added, for the streaming callbacks. */
export interface ChunkDelta {
  text: string;
  thought: string;
}

/** Fields some servers add to the OpenAI chunk and usage shapes. */
interface ReasoningDelta {
  reasoning_content?: unknown;
  reasoning?: unknown;
}
interface UsageExtras {
  prompt_cache_hit_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
}

interface PartialCall {
  id: string | null;
  name: string;
  args: string;
}

export class ChunkAssembler {
  #text = "";
  #thought = "";
  readonly #calls = new Map<number, PartialCall>();
  #lastIndex = -1;
  #finish: string | null = null;
  #usage: AssembledUsage | null = null;

  /** Takes one chunk; returns the text and reasoning it added (for the streaming callbacks). */
  add(chunk: ChatCompletionChunk): ChunkDelta {
    if (chunk.usage) this.#usage = toUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return { text: "", thought: "" };
    const delta = choice.delta ?? {};
    let added = "";
    if (typeof delta.content === "string") added += delta.content;
    if (typeof delta.refusal === "string") added += delta.refusal;
    this.#text += added;
    const reasoning = delta as ReasoningDelta;
    const thought =
      typeof reasoning.reasoning_content === "string"
        ? reasoning.reasoning_content
        : typeof reasoning.reasoning === "string"
          ? reasoning.reasoning
          : "";
    this.#thought += thought;
    for (const part of delta.tool_calls ?? []) this.#addCallPart(part);
    if (choice.finish_reason) this.#finish = choice.finish_reason;
    return { text: added, thought };
  }

  #addCallPart(part: ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const index = this.#indexOf(part);
    this.#lastIndex = index;
    let call = this.#calls.get(index);
    if (!call) this.#calls.set(index, (call = { id: null, name: "", args: "" }));
    if (part.id) call.id = part.id;
    if (part.function?.name) call.name += part.function.name;
    if (typeof part.function?.arguments === "string") call.args += part.function.arguments;
  }

  #indexOf(part: ChatCompletionChunk.Choice.Delta.ToolCall): number {
    if (typeof part.index === "number") return part.index;
    // A server that leaves the index out: a new id starts a new call, a part without one continues the last.
    const last = this.#calls.get(this.#lastIndex);
    if (!last || (part.id && last.id !== null && last.id !== part.id)) return this.#lastIndex + 1;
    return this.#lastIndex;
  }

  finish(): AssembledResponse {
    if (this.#finish === null) throw new StreamIncomplete("the stream ended before the model finished its answer");
    const truncated = this.#finish === "length" || this.#finish === "content_filter";
    // A cut-off answer's tool calls are incomplete: they are dropped, never run.
    const toolCalls = truncated
      ? []
      : [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => toRequest(call));
    let finish: AssembledResponse["finish"];
    if (this.#finish === "length") finish = "length";
    else if (this.#finish === "content_filter") finish = "content_filter";
    // Some servers say "stop" when they stop for tool calls.
    else finish = toolCalls.length > 0 ? "tool_calls" : "stop";
    return { text: this.#text, thought: this.#thought, toolCalls, finish, usage: this.#usage };
  }
}

function toUsage(usage: NonNullable<ChatCompletionChunk["usage"]>): AssembledUsage {
  const extras = usage as UsageExtras;
  const cached = count(extras.prompt_cache_hit_tokens) ?? count(extras.prompt_tokens_details?.cached_tokens);
  const promptTokens = count(usage.prompt_tokens);
  const completionTokens = count(usage.completion_tokens);
  return {
    totalTokens: count(usage.total_tokens) ?? (promptTokens ?? 0) + (completionTokens ?? 0),
    promptTokens,
    completionTokens,
    cachedTokens: cached,
  };
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

function toRequest(call: PartialCall): AssembledResponse["toolCalls"][number] {
  return { id: call.id ?? `call_${randomUUID()}`, name: call.name, input: parseArguments(call.args) };
}

/** Arguments that are not a JSON object are kept as the raw string: the tool's input check then tells the model. */
function parseArguments(args: string): unknown {
  if (args.trim() === "") return {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}
