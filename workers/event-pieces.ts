// A large text event as several events of at most PIECE_CHARS characters each, so that a worker whose client is
// behind waits between them rather than handing the main thread one huge message (a model's long answer, a file
// said back many times). The client sees the same text, in more chunks; small events pass as they are.
import type { WorkerEvent } from "../src/protocol/worker-events.js";

export const PIECE_CHARS = 64 * 1024;

export function pieces(event: WorkerEvent): WorkerEvent[] {
  switch (event.type) {
    case "assistant_message":
      if (event.blocks.reduce((sum, block) => sum + block.length, 0) <= PIECE_CHARS) return [event];
      return event.blocks.flatMap((block) => slices(block).map((text) => ({ ...event, blocks: [text] })));
    case "thought":
    case "user_message":
      if (event.text.length <= PIECE_CHARS) return [event];
      return slices(event.text).map((text) => ({ ...event, text }));
    default:
      return [event];
  }
}

/** The text cut every PIECE_CHARS characters, never between the two halves of a surrogate pair. */
function slices(text: string): string[] {
  const parts: string[] = [];
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + PIECE_CHARS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}
