// A large text event goes out as events of at most PIECE_CHARS characters with the same text in order, never cut
// inside a surrogate pair; small events pass as they are.
import { expect, it } from "vitest";
import type { WorkerEvent } from "../../src/protocol/worker-events.js";
import { PIECE_CHARS, pieces } from "../../workers/event-pieces.js";

const textOf = (events: WorkerEvent[]) =>
  events
    .map((event) =>
      event.type === "assistant_message" ? event.blocks.join("") : event.type === "thought" ? event.text : "",
    )
    .join("");

it("cuts large messages and thoughts into pieces of the same text; leaves small ones whole", () => {
  const small: WorkerEvent = { type: "assistant_message", turnId: "t", blocks: ["a", "b"] };
  expect(pieces(small)).toEqual([small]);

  // A surrogate pair straddling the first cut.
  const block = `${"x".repeat(PIECE_CHARS - 1)}😀${"y".repeat(PIECE_CHARS * 2)}`;
  const large: WorkerEvent = { type: "assistant_message", turnId: "t", blocks: ["head", block] };
  const cut = pieces(large);
  expect(cut.length).toBeGreaterThan(3);
  expect(textOf(cut)).toBe(`head${block}`);
  for (const piece of cut) {
    const text = textOf([piece]);
    expect(text.length).toBeLessThanOrEqual(PIECE_CHARS);
    expect(text).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
  }

  const thought: WorkerEvent = { type: "thought", turnId: "t", text: "z".repeat(PIECE_CHARS + 1) };
  expect(textOf(pieces(thought))).toBe(thought.text);
  expect(pieces(thought)).toHaveLength(2);
});
