// Assembles one streamed chat completion: text deltas, tool calls split across chunks, finish reason, usage.
import { randomUUID } from "node:crypto";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { FinishReason, ToolCallRequest } from "./model.js";

/** The stream ended (cleanly or not) before a chunk carried a finish reason: the response is incomplete. */
export class StreamIncomplete extends Error {}

export interface AssembledResponse {
  text: string;
  toolCalls: ToolCallRequest[];
  finish: FinishReason;
  /** Total tokens of the request and its answer, when the server reported usage. */
  totalTokens: number | null;
}

interface PartialCall {
  id: string | null;
  name: string;
  args: string;
}

export class ChunkAssembler {
  #text = "";
  readonly #calls = new Map<number, PartialCall>();
  #lastIndex = -1;
  #finish: string | null = null;
  #totalTokens: number | null = null;

  /** Takes one chunk; returns the text it added (for onDelta). */
  add(chunk: ChatCompletionChunk): string {
    const usage = chunk.usage;
    if (usage) this.#totalTokens = usage.total_tokens ?? (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0);
    const choice = chunk.choices?.[0];
    if (!choice) return "";
    const delta = choice.delta ?? {};
    let added = "";
    if (typeof delta.content === "string") added += delta.content;
    if (typeof delta.refusal === "string") added += delta.refusal;
    this.#text += added;
    for (const part of delta.tool_calls ?? []) this.#addCallPart(part);
    if (choice.finish_reason) this.#finish = choice.finish_reason;
    return added;
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
    const toolCalls = truncated ? [] : [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => toRequest(call));
    let finish: FinishReason;
    if (this.#finish === "length") finish = "length";
    else if (this.#finish === "content_filter") finish = "content_filter";
    // Some servers say "stop" when they stop for tool calls.
    else finish = toolCalls.length > 0 ? "tool_calls" : "stop";
    return { text: this.#text, toolCalls, finish, totalTokens: this.#totalTokens };
  }
}

function toRequest(call: PartialCall): ToolCallRequest {
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
