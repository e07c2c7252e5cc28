// The embedded scripted model: deterministic and offline, for tests, the demo and benchmarks.
// A plain prompt is echoed ("You said: …"); "/script [steps]" runs the steps in order (see docs/models.md).
// It is stateless: where a script stands is read from the conversation, so a restored session resumes it.
import { setImmediate as setImmediatePromise, setTimeout as sleep } from "node:timers/promises";
import * as z from "zod/mini";
import { PromptRejected, type ChatMessage, type Model, type ModelRequest, type ModelResponse } from "./model.js";

// Built on the first /script prompt: an echo never needs it.
const Step = z.lazy(() =>
  z.union([
    z.strictObject({ say: z.string() }),
    z.strictObject({
      tool: z.string().check(z.minLength(1)),
      input: z._default(z.record(z.string(), z.unknown()), {}),
    }),
    /** Several tool calls in one answer (the loop runs those it may run together, spawn_agent's, at once). */
    z.strictObject({
      tools: z
        .array(
          z.strictObject({
            tool: z.string().check(z.minLength(1)),
            input: z._default(z.record(z.string(), z.unknown()), {}),
          }),
        )
        .check(z.minLength(1)),
    }),
    z.strictObject({ sleep_ms: z.int().check(z.nonnegative()) }),
    z.strictObject({ spin_ms: z.int().check(z.nonnegative()) }),
    z.strictObject({ freeze_after_ms: z.int().check(z.nonnegative()) }),
    z.strictObject({ alloc_mb: z.int().check(z.positive()) }),
    z.strictObject({ crash: z.string() }),
  ]),
);
type Step = z.infer<typeof Step>;
const Script = z.lazy(() => z.array(Step).check(z.minLength(1)));

const SCRIPT_PREFIX = "/script ";
const FAULT_STEPS = ["spin_ms", "freeze_after_ms", "alloc_mb", "crash"] as const;
/** How long after the turn's end a freeze_after_ms step blocks the worker: its turn is over by then. */
const FREEZE_DELAY_MS = 100;

/** Memory held by alloc_mb steps: it lives as long as the worker, which serves one session only. */
const held: number[][] = [];

function parseScript(text: string): Step[] | null {
  if (!text.startsWith(SCRIPT_PREFIX)) return null;
  let json: unknown;
  try {
    json = JSON.parse(text.slice(SCRIPT_PREFIX.length));
  } catch (error) {
    throw new PromptRejected(`invalid script: ${(error as Error).message}`);
  }
  const parsed = Script.safeParse(json);
  if (!parsed.success) throw new PromptRejected(`invalid script: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // burning CPU on purpose: this is the fault the step injects
  }
}

function allocate(mb: number): void {
  for (let i = 0; i < mb; i++) {
    // 128 Ki small integers = 1 MiB of JS heap (not an external buffer), so maxOldGenerationSizeMb applies
    held.push(new Array<number>(128 * 1024).fill(i));
  }
}

export class ScriptedModel implements Model {
  readonly name = "scripted";
  readonly contextWindow = null;
  readonly #allowFaults: boolean;

  constructor(options: { allowFaultInjection: boolean }) {
    this.#allowFaults = options.allowFaultInjection;
  }

  check(text: string): void {
    const steps = parseScript(text);
    if (!steps || this.#allowFaults) return;
    const fault = steps.flatMap((step) => FAULT_STEPS.filter((name) => name in step))[0];
    if (fault)
      throw new PromptRejected(`fault injection step "${fault}" needs a host started with --allow-fault-injection`);
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const call = request.calls?.begin({ model: this.name, provider: "scripted", retry: 0 });
    try {
      const response = await this.#play(request);
      call?.done({ finish: response.finish, text: response.blocks.join("") });
      return response;
    } catch (error) {
      call?.failed(request.signal.aborted ? "cancelled" : "internal", (error as Error).message ?? String(error));
      throw error;
    }
  }

  async #play(request: ModelRequest): Promise<ModelResponse> {
    const { messages, signal } = request;
    const lastUser = messages.findLastIndex((message) => message.role === "user");
    const user = messages[lastUser] as Extract<ChatMessage, { role: "user" }> | undefined;
    if (!user) return { blocks: [], toolCalls: [], finish: "stop" };
    const steps = parseScript(user.text);
    if (!steps) return { blocks: [`You said: ${user.text}`], toolCalls: [], finish: "stop" };

    const since = messages.slice(lastUser + 1);
    const toolCallsSoFar = since
      .filter((m) => m.role === "assistant")
      .reduce((n, m) => n + (m.role === "assistant" ? m.toolCalls.length : 0), 0);
    const lastTool = since.findLast((m) => m.role === "tool");
    const lastResult = lastTool?.role === "tool" ? lastTool.result : "";

    // Skip the segments already played: each segment ends with one tool step (of one call, or of several).
    let index = 0;
    for (let seen = 0; seen < toolCallsSoFar && index < steps.length; index++) {
      const step = steps[index]!;
      if ("tool" in step) seen++;
      else if ("tools" in step) seen += step.tools.length;
    }
    let blocks: string[] = [];
    for (; index < steps.length; index++) {
      signal.throwIfAborted();
      const step = steps[index]!;
      if ("say" in step) {
        blocks.push(step.say.replaceAll("{{result}}", lastResult));
        continue;
      }
      // What was said before a step that takes time is a message of its own, out before the step runs.
      if (blocks.length > 0 && !("tool" in step) && !("tools" in step)) {
        await request.commit(blocks);
        blocks = [];
      }
      // A step that holds the thread lets the event loop turn first: the worker's events go out once per turn.
      if ("spin_ms" in step || "alloc_mb" in step) await setImmediatePromise();
      if ("sleep_ms" in step) await sleep(step.sleep_ms, undefined, { signal });
      else if ("spin_ms" in step) spin(step.spin_ms);
      else if ("freeze_after_ms" in step) {
        const ms = step.freeze_after_ms;
        setTimeout(() => spin(ms), FREEZE_DELAY_MS).unref();
      } else if ("alloc_mb" in step) allocate(step.alloc_mb);
      else if ("crash" in step) {
        const message = step.crash;
        setImmediate(() => {
          throw new Error(message);
        });
        await sleep(60_000, undefined, { signal });
      } else if ("tools" in step) {
        const toolCalls = step.tools.map((call, i) => ({
          id: `call_${toolCallsSoFar + 1 + i}`,
          name: call.tool,
          input: call.input,
        }));
        return { blocks, toolCalls, finish: "tool_calls" };
      } else {
        const id = `call_${toolCallsSoFar + 1}`;
        return { blocks, toolCalls: [{ id, name: step.tool, input: step.input }], finish: "tool_calls" };
      }
    }
    return { blocks, toolCalls: [], finish: "stop" };
  }
}
