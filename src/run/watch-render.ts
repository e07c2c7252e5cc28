// What `acp-session-host watch` prints of a session's updates: plain text, one line or block per update, pure (no I/O).
// The session's text is untrusted (a model, a tool's output, another client's prompt): it is printed as text only, with
// terminal escape sequences and control characters taken out.
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { compareEventPositions, parseEventId, type EventPosition } from "../protocol/event-id.js";

/** One thing the watcher shows, in the order it came: an update, or the end of a turn (`_host/turn_ended`). */
export type WatchItem = { kind: "update"; update: SessionUpdate } | { kind: "turnEnded"; stopReason: string };

// ESC-introduced sequences: CSI (ESC [ … final), OSC/DCS/SOS/PM/APC strings (to BEL or ST), and two-byte escapes.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]?/g;
// C0 controls but \t and \n, DEL, and C1 controls (a terminal may take U+009B as CSI).
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Untrusted text made safe to print: no escape sequence, no control character but \n and \t (so no \r either). */
export function sanitize(text: string): string {
  return text.replace(ESCAPES, "").replace(CONTROLS, "");
}

/** How many turns `items` holds (prompts: runs of user_message_chunk). */
function turnStarts(items: readonly WatchItem[]): number[] {
  const starts: number[] = [];
  let inPrompt = false;
  items.forEach((item, index) => {
    const prompt = item.kind === "update" && item.update.sessionUpdate === "user_message_chunk";
    if (prompt && !inPrompt) starts.push(index);
    inPrompt = prompt;
  });
  return starts;
}

/**
 * Where the last `turns` turns of `items` start (a turn starts at a user_message_chunk that does not follow another):
 * 0 when there are no more than that many.
 */
export function lastTurnsStart(items: readonly WatchItem[], turns: number): number {
  const starts = turnStarts(items);
  return starts.length > turns ? starts[starts.length - turns]! : 0;
}

/** An update's place in its session (`_meta.eventId`); null: it has none this host gives. */
export function positionOf(update: SessionUpdate): EventPosition | null {
  const id = update._meta?.eventId;
  return typeof id === "string" ? parseEventId(id) : null;
}

/**
 * The watcher's view of one session, fed its updates and turn ends as they come: the attach's replay is held until it
 * has all come (`replayEnded`), then the last `turns` turns of it are shown (all of it with "all"), then what comes
 * live. A turn's end is shown once the update it names as its last has been (it is a notification of its own, which
 * may overtake them).
 */
export class WatchView {
  /** The replay, held; null once live. */
  #held: WatchItem[] | null = [];
  /** The last update the replay holds (null: none), once the attach's answer has told it. */
  #replayEnd: EventPosition | null | undefined;
  /** How many updates came, and how many of them the replay is (when the transport says so). */
  #received = 0;
  #replayCount: number | null = null;
  /** The furthest update shown or held. */
  #last: EventPosition | null = null;
  readonly #ends: Array<{ stopReason: string; after: EventPosition | null }> = [];
  readonly #renderer = new WatchRenderer();

  constructor(
    readonly turns: number | "all",
    readonly write: (text: string) => void,
    /** Told how many turns of the replay were left out, once it is shown. */
    readonly onSkipped: (turns: number) => void = () => {},
  ) {}

  get live(): boolean {
    return this.#held === null;
  }

  update(update: SessionUpdate): void {
    const position = positionOf(update);
    if (position && (!this.#last || compareEventPositions(position, this.#last) > 0)) this.#last = position;
    this.#received++;
    this.#show({ kind: "update", update });
    if (this.#held && this.#replayEnd !== undefined && this.#replayDone()) this.goLive();
    this.#showEnds(false);
  }

  /** A `_host/turn_ended` notification: shown after its last update (`lastEventId`) is. false: waiting for it. */
  turnEnded(stopReason: string, lastEventId: string | null): boolean {
    this.#ends.push({ stopReason, after: lastEventId ? parseEventId(lastEventId) : null });
    this.#showEnds(false);
    return this.#ends.length === 0;
  }

  /** Shows the turn ends still waiting for their last update (it was not sent to this client). */
  flushTurnEnds(): void {
    this.#showEnds(true);
  }

  /**
   * The attach answered: its replay ends at lastEventId; the view goes live once that update has come (or at
   * `goLive()`). `count`: on one ordered stream, every replayed update came before the answer, and this many had by
   * then; the view goes live once it has been given that many (it may be given them later: they queue on the way).
   */
  replayEnded(lastEventId: string | null, count: number | null = null): void {
    this.#replayEnd = lastEventId ? parseEventId(lastEventId) : null;
    this.#replayCount = count;
    if (this.#replayDone()) this.goLive();
  }

  /** Shows the held replay (its last turns) and everything after it as it comes. */
  goLive(): void {
    const held = this.#held;
    if (!held) return;
    this.#held = null;
    // What came after the replay's end is live, whatever the turns.
    const end = this.#replayEnd;
    let split = held.length;
    if (end)
      split = held.findIndex((item) => {
        const position = item.kind === "update" ? positionOf(item.update) : null;
        return position !== null && compareEventPositions(position, end) > 0;
      });
    if (split < 0) split = held.length;
    const replay = held.slice(0, split);
    const start = this.turns === "all" ? 0 : lastTurnsStart(replay, this.turns);
    const skipped = turnStarts(replay.slice(0, start)).length;
    if (skipped > 0) this.onSkipped(skipped);
    for (const item of held.slice(start)) this.#write(item);
    this.#showEnds(false);
  }

  /** What to print before the watcher stops: an open line ended. */
  finish(): string {
    return this.#renderer.finish();
  }

  #replayDone(): boolean {
    if (this.#replayCount !== null && this.#received >= this.#replayCount) return true;
    return this.#reached(this.#replayEnd!);
  }

  #reached(position: EventPosition | null): boolean {
    return position === null || (this.#last !== null && compareEventPositions(this.#last, position) >= 0);
  }

  #show(item: WatchItem): void {
    if (this.#held) this.#held.push(item);
    else this.#write(item);
  }

  #showEnds(all: boolean): void {
    while (this.#ends.length > 0 && (all || this.#reached(this.#ends[0]!.after))) {
      const { stopReason } = this.#ends.shift()!;
      this.#show({ kind: "turnEnded", stopReason });
    }
  }

  #write(item: WatchItem): void {
    const text = this.#renderer.render(item);
    if (text) this.write(text);
  }
}

interface ToolState {
  title: string;
  status: string;
  /** Output was shown as it came: the final result (which repeats it) is not shown again. */
  streamed: boolean;
}

/**
 * Turns items into text, keeping what it needs across them: which stream of text has a line still open (the agent's
 * message, the prompt, a tool's output), and each tool call's title and last status.
 */
export class WatchRenderer {
  /** The stream whose last line is not ended yet; null: the output is at the start of a line. */
  #open: string | null = null;
  /** Whether the open stream's next text starts a line of its own (it ended with \n). */
  #lineStart = true;
  readonly #tools = new Map<string, ToolState>();

  /** The text to print for one item ("" when it shows nothing). */
  render(item: WatchItem): string {
    if (item.kind === "turnEnded") return this.#line(`(turn ended: ${sanitize(item.stopReason)})`);
    const update = item.update;
    switch (update.sessionUpdate) {
      case "user_message_chunk":
        return update.content.type === "text"
          ? this.#stream(`user:${update.messageId ?? ""}`, update.content.text, "> ")
          : "";
      case "agent_message_chunk":
        return update.content.type === "text"
          ? this.#stream(`agent:${update.messageId ?? ""}`, update.content.text, "")
          : "";
      case "tool_call": {
        const tool = { title: sanitize(update.title), status: update.status ?? "pending", streamed: false };
        this.#tools.set(update.toolCallId, tool);
        return (
          this.#line(`[tool] ${tool.title} (${sanitize(tool.status)})`) +
          this.#output(update.toolCallId, update.content, false)
        );
      }
      case "tool_call_update": {
        let tool = this.#tools.get(update.toolCallId);
        let text = "";
        if (!tool) {
          tool = { title: sanitize(update.title ?? update.toolCallId), status: "", streamed: false };
          this.#tools.set(update.toolCallId, tool);
        } else if (update.title) tool.title = sanitize(update.title);
        // The final result repeats the output shown as it came; a result nothing was streamed before is shown.
        const final = update.rawOutput !== undefined && update.rawOutput !== null;
        const output = final && tool.streamed ? "" : this.#output(update.toolCallId, update.content, !final);
        if (update.status && update.status !== tool.status) {
          tool.status = update.status;
          // A call that ends shows its result before its end; one that starts running shows its status first.
          const status = this.#line(`[tool] ${tool.title} (${sanitize(tool.status)})`);
          text = final ? output + status : status + output;
        } else text = output;
        return text;
      }
      case "plan":
        return (
          this.#line("[plan]") +
          update.entries
            .map((entry) => this.#line(`  ${PLAN_MARKS[entry.status] ?? "[ ]"} ${sanitize(entry.content)}`))
            .join("")
        );
      default:
        return "";
    }
  }

  /** Ends an open line, if any: what to print before the watcher stops. */
  finish(): string {
    return this.#close();
  }

  #output(toolCallId: string, content: ToolCallContent[] | null | undefined, streamed: boolean): string {
    let text = "";
    for (const item of content ?? [])
      if (item.type === "content" && item.content.type === "text" && item.content.text) {
        text += this.#stream(`tool:${toolCallId}`, item.content.text, "    ");
        if (streamed) this.#tools.get(toolCallId)!.streamed = true;
      }
    return text;
  }

  /** Text of a stream that goes on across updates; each of its lines starts with `prefix`. */
  #stream(key: string, raw: string, prefix: string): string {
    const text = sanitize(raw);
    if (!text) return "";
    let out = "";
    if (this.#open !== key) {
      out += this.#close();
      this.#open = key;
      this.#lineStart = true;
    }
    const lines = text.split("\n");
    lines.forEach((line, index) => {
      if (index > 0) {
        out += "\n";
        this.#lineStart = true;
      }
      if (line === "") return;
      if (this.#lineStart) out += prefix;
      out += line;
      this.#lineStart = false;
    });
    return out;
  }

  /** A line of its own. */
  #line(text: string): string {
    const out = this.#close();
    return `${out}${text}\n`;
  }

  /** Ends the open stream's line if it is not ended. */
  #close(): string {
    const out = this.#open !== null && !this.#lineStart ? "\n" : "";
    this.#open = null;
    this.#lineStart = true;
    return out;
  }
}

const PLAN_MARKS: Record<string, string> = { pending: "[ ]", in_progress: "[>]", completed: "[x]" };
