// One session's updates folded into what the live view shows: messages (chunks of one message joined), tool calls
// with their input and output, child sessions (announced, or named by their spawn_agent call), the plan, the mode and
// usage. Every string is kept as the host sent it, escapes
// stripped; the views render it as text only.
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { stripAnsi } from "../text/ansi";
import { childOfOutput } from "./child-note";

export interface MessageEntry {
  kind: "user" | "agent" | "thought";
  id: string;
  text: string;
}

export interface ToolEntry {
  kind: "tool";
  id: string;
  title: string;
  /** The tool's name where the host gave it (`_meta["acp-session-host"].tool`), else ACP's kind of tool. */
  label: string;
  status: string;
  input: string;
  output: string;
  /** The child session a spawn_agent call ran, once its output names it. */
  childSessionId: string | null;
}

/** A child session announced on its parent (subagent_update; sent live only to clients that understand subagents). */
export interface ChildEntry {
  kind: "child";
  /** The child's session id. */
  id: string;
  title: string;
  state: string;
}

export type Entry = MessageEntry | ToolEntry | ChildEntry;

export interface PlanItem {
  content: string;
  status: string;
}

/** What the host adds to usage_update (src/host/session/updates.ts): the session's token sums. */
interface UsageMeta {
  session?: { prompt: number; completion: number; cached: number };
}

export class Transcript {
  entries: Entry[] = [];
  plan: PlanItem[] = [];
  mode: string | null = null;
  /** The context window's use, as the last usage_update said it. */
  usage: string | null = null;
  /** The session's model tokens and, where the host prices them, its cost. */
  spent: string | null = null;
  lastEventId: string | null = null;
  #messages = 0;
  /** Where each turn's entries start: a user message that does not follow another (as `watch` counts turns). */
  #turnStarts: number[] = [];

  /** Leaves out the entries of all but the last `turns` turns; answers how many turns were left out. */
  keepLastTurns(turns: number): number {
    const skipped = Math.max(0, this.#turnStarts.length - turns);
    if (skipped === 0) return 0;
    const start = this.#turnStarts[skipped]!;
    this.entries = this.entries.slice(start);
    this.#turnStarts = this.#turnStarts.slice(skipped).map((index) => index - start);
    return skipped;
  }

  apply(update: SessionUpdate, eventId: string | null): void {
    if (eventId !== null) this.lastEventId = eventId;
    switch (update.sessionUpdate) {
      case "user_message_chunk":
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        const kind =
          update.sessionUpdate === "user_message_chunk"
            ? "user"
            : update.sessionUpdate === "agent_message_chunk"
              ? "agent"
              : "thought";
        const text = update.content.type === "text" ? update.content.text : `[${update.content.type}]`;
        const last = this.entries[this.entries.length - 1];
        const messageId = (update as { messageId?: string | null }).messageId ?? null;
        if (last && last.kind === kind && messageId !== null && last.id === messageId) last.text += stripAnsi(text);
        else {
          if (kind === "user" && last?.kind !== "user") this.#turnStarts.push(this.entries.length);
          this.entries.push({ kind, id: messageId ?? `m${++this.#messages}`, text: stripAnsi(text) });
        }
        break;
      }
      case "tool_call":
        this.entries.push({
          kind: "tool",
          id: update.toolCallId,
          title: stripAnsi(update.title),
          label: toolName(update._meta) ?? update.kind ?? "other",
          status: update.status ?? "pending",
          input: shown(update.rawInput),
          output: contentText(update.content ?? []),
          childSessionId: null,
        });
        break;
      case "tool_call_update": {
        const call = this.entries.find(
          (entry): entry is ToolEntry => entry.kind === "tool" && entry.id === update.toolCallId,
        );
        if (!call) break;
        if (update.title) call.title = stripAnsi(update.title);
        if (update.status) call.status = update.status;
        if (update.rawInput !== undefined) call.input = shown(update.rawInput);
        if (update.rawOutput !== undefined) {
          const raw = update.rawOutput as { output?: unknown } | null;
          call.output = typeof raw?.output === "string" ? stripAnsi(raw.output) : shown(update.rawOutput);
        } else if (update.content) call.output += contentText(update.content);
        call.childSessionId = childOfOutput(call.title, call.output);
        break;
      }
      case "subagent_update": {
        const child = this.entries.find(
          (entry): entry is ChildEntry => entry.kind === "child" && entry.id === update.sessionId,
        );
        const state = update.state?.state;
        if (child) {
          if (update.title) child.title = stripAnsi(update.title);
          if (state) child.state = state;
        } else
          this.entries.push({
            kind: "child",
            id: update.sessionId,
            title: stripAnsi(update.title ?? ""),
            state: state ?? "running",
          });
        break;
      }
      case "plan":
        this.plan = update.entries.map((entry) => ({ content: stripAnsi(entry.content), status: entry.status }));
        break;
      case "current_mode_update":
        this.mode = update.currentModeId;
        break;
      case "usage_update": {
        this.usage = `context ${update.used} / ${update.size} tokens`;
        const session = (update._meta?.["acp-session-host"] as UsageMeta | undefined)?.session;
        const cost = update.cost ? `, ${update.cost.amount.toFixed(4)} ${update.cost.currency}` : "";
        if (session) this.spent = `${session.prompt} in, ${session.completion} out (${session.cached} cached)${cost}`;
        else if (cost !== "") this.spent = cost.slice(2);
        break;
      }
      default:
        break;
    }
  }
}

function toolName(meta: Record<string, unknown> | null | undefined): string | null {
  const tool = (meta?.["acp-session-host"] as { tool?: unknown } | undefined)?.tool;
  return typeof tool === "string" ? stripAnsi(tool) : null;
}

function contentText(content: ToolCallContent[]): string {
  let text = "";
  for (const item of content)
    if (item.type === "content" && item.content.type === "text") text += stripAnsi(item.content.text);
  return text;
}

function shown(value: unknown): string {
  if (value === undefined || value === null) return "";
  return stripAnsi(typeof value === "string" ? value : JSON.stringify(value, null, 2));
}
