// What `acp-session-host watch` prints of a session's updates: prompts, the agent's text joined by message, tool calls
// and their output, plans, turn ends; untrusted text without escapes; the replay cut to its last turns, turn ends
// after their last update.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { expect, it } from "vitest";
import { WatchRenderer, WatchView, lastTurnsStart, sanitize, type WatchItem } from "../../src/run/watch-render.js";

let seq = 0;
const id = (eventId?: string) => ({ _meta: { eventId: eventId ?? `${++seq}.0` } });
const user = (text: string, messageId = "u", eventId?: string): SessionUpdate => ({
  sessionUpdate: "user_message_chunk",
  messageId,
  content: { type: "text", text },
  ...id(eventId),
});
const agent = (text: string, messageId = "a", eventId?: string): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  messageId,
  content: { type: "text", text },
  ...id(eventId),
});
const toolCall = (toolCallId: string, title: string): SessionUpdate => ({
  sessionUpdate: "tool_call",
  toolCallId,
  title,
  status: "pending",
});
const toolUpdate = (
  toolCallId: string,
  fields: { status?: "in_progress" | "completed" | "failed"; text?: string; rawOutput?: unknown },
): SessionUpdate => ({
  sessionUpdate: "tool_call_update",
  toolCallId,
  ...(fields.status ? { status: fields.status } : {}),
  ...(fields.text !== undefined
    ? { content: [{ type: "content", content: { type: "text", text: fields.text } }] }
    : {}),
  ...(fields.rawOutput !== undefined ? { rawOutput: fields.rawOutput } : {}),
});
const u = (update: SessionUpdate): WatchItem => ({ kind: "update", update });

function render(items: WatchItem[]): string {
  const renderer = new WatchRenderer();
  return items.map((item) => renderer.render(item)).join("") + renderer.finish();
}

it("shows a prompt, the agent's chunks joined by message, and the turn's end", () => {
  expect(
    render([
      u(user("fix the ")),
      u(user("bug\nin main.ts")),
      u(agent("Looking", "m1")),
      u(agent(" at it.", "m1")),
      u(agent("Done.", "m2")),
      { kind: "turnEnded", stopReason: "end_turn" },
    ]),
  ).toBe("> fix the bug\n> in main.ts\nLooking at it.\nDone.\n(turn ended: end_turn)\n");
});

it("shows a tool call's status changes and its output indented, streamed output once, a result nothing streamed", () => {
  expect(
    render([
      u(agent("Running it:")),
      u(toolCall("t1", "npm test")),
      u(toolUpdate("t1", { status: "in_progress" })),
      u(toolUpdate("t1", { text: "line one\nline " })),
      u(toolUpdate("t1", { text: "two\n" })),
      // The final result repeats what was streamed: not shown again.
      u(toolUpdate("t1", { status: "completed", text: "line one\nline two\n", rawOutput: { output: "…" } })),
      u(toolCall("t2", "Read a.txt")),
      u(toolUpdate("t2", { status: "failed", text: "no such file", rawOutput: { output: "no such file" } })),
      // An update that changes nothing shown shows nothing.
      u(toolUpdate("t2", { status: "failed" })),
    ]),
  ).toBe(
    "Running it:\n[tool] npm test (pending)\n[tool] npm test (in_progress)\n    line one\n    line two\n" +
      "[tool] npm test (completed)\n[tool] Read a.txt (pending)\n    no such file\n[tool] Read a.txt (failed)\n",
  );
});

it("shows a plan, and nothing for updates it does not show", () => {
  expect(
    render([
      {
        kind: "update",
        update: {
          sessionUpdate: "plan",
          entries: [
            { content: "read", priority: "high", status: "completed" },
            { content: "fix", priority: "high", status: "in_progress" },
            { content: "test", priority: "low", status: "pending" },
          ],
        },
      },
      u({ sessionUpdate: "usage_update", used: 10, size: 100 }),
      u({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } }),
    ]),
  ).toBe("[plan]\n  [x] read\n  [>] fix\n  [ ] test\n");
});

it("takes escape sequences and control characters out of untrusted text, keeping newlines and tabs", () => {
  expect(sanitize("a\x1b[31mred\x1b[0m\tb\r\nc\x07\x00\x9b2J")).toBe("ared\tb\nc2J");
  // A title (OSC), a cursor move, a lone ESC.
  expect(sanitize("x\x1b]0;pwned\x07y\x1b[2;5Hz\x1b")).toBe("xyz");
  expect(render([u(agent("\x1b[2Jcleared?")), u(toolCall("t", "rm\x1b[8m -rf"))])).toBe(
    "cleared?\n[tool] rm -rf (pending)\n",
  );
});

it("finds where the last N turns start: a turn starts at a prompt's first chunk", () => {
  const items = [u(user("one")), u(agent("1")), u(user("two")), u(user(" more")), u(agent("2")), u(user("three"))];
  expect(lastTurnsStart(items, 1)).toBe(5);
  expect(lastTurnsStart(items, 2)).toBe(2);
  expect(lastTurnsStart(items, 3)).toBe(0);
  expect(lastTurnsStart(items, 9)).toBe(0);
  expect(lastTurnsStart([u(agent("no prompt"))], 1)).toBe(0);
});

it("holds the replay until it has all come, shows its last turn, then what comes live", () => {
  let out = "";
  const skipped: number[] = [];
  const view = new WatchView(
    1,
    (text) => (out += text),
    (turns) => skipped.push(turns),
  );
  view.update(user("one", "u1", "1.0"));
  view.update(agent("1", "a1", "2.0"));
  view.update(user("two", "u2", "3.0"));
  expect(out).toBe("");
  // Over Streamable HTTP the answer may come before the replay's last update.
  view.replayEnded("4.0");
  expect(view.live).toBe(false);
  view.update(agent("2", "a2", "4.0"));
  expect(view.live).toBe(true);
  expect(out).toBe("> two\n2");
  expect(skipped).toEqual([1]);
  // A turn's end that overtakes its last update waits for it.
  expect(view.turnEnded("end_turn", "6.0")).toBe(false);
  view.update(user("three", "u3", "5.0"));
  view.update(agent("3", "a3", "6.0"));
  expect(out).toBe("> two\n2\n> three\n3\n(turn ended: end_turn)\n");
});

it("on an ordered stream, goes live once it has the updates that came before the answer; keeps later ones out of the cut", () => {
  let out = "";
  const view = new WatchView(1, (text) => (out += text));
  view.update(user("one", "u1", "1.0"));
  // Three came before the answer (one is still queued on its way to the view); the last id is not one the replay shows.
  view.replayEnded("2.999999", 3);
  expect(out).toBe("");
  view.update(agent("1", "a1", "2.0"));
  view.update(user("two", "u2", "2.1"));
  expect(out).toBe("> two");

  // A live prompt held with the replay (its answer came late) does not push the replay's last turn out.
  let late = "";
  const held = new WatchView(1, (text) => (late += text));
  held.update(user("one", "u1", "1.0"));
  held.update(agent("1", "a1", "2.0"));
  held.update(user("two", "u2", "3.0"));
  held.replayEnded("2.0");
  expect(late).toBe("> one\n1\n> two");
  // A turn end whose last update never comes is shown when flushed; --from-start shows everything.
  expect(held.turnEnded("cancelled", "9.0")).toBe(false);
  held.flushTurnEnds();
  expect(late).toBe("> one\n1\n> two\n(turn ended: cancelled)\n");
  let all = "";
  const everything = new WatchView("all", (text) => (all += text));
  everything.update(user("one", "u1", "1.0"));
  everything.update(user("two", "u2", "2.0"));
  everything.replayEnded(null);
  expect(all).toBe("> one\n> two");
});
