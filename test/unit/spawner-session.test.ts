// The spawner's bounded output (a background task's unread output, a foreground command's tail): whatever the
// chunking, it is the last `limit` characters, and what was let go of is counted in bytes.
import fc from "fast-check";
import { expect, it } from "vitest";
import { UnreadOutput } from "../../src/spawner/spawner-session.js";

it("keeps exactly the last limit characters of what was pushed, however it was cut, and counts the rest", () => {
  fc.assert(
    fc.property(fc.array(fc.string({ maxLength: 50 }), { maxLength: 40 }), fc.nat(120), (chunks, limit) => {
      const tail = new UnreadOutput(limit);
      for (const chunk of chunks) tail.append(chunk);
      const all = chunks.join("");
      const kept = limit === 0 ? "" : all.slice(Math.max(0, all.length - limit));
      const { output, droppedBytes } = tail.take();
      expect(output).toBe(kept);
      expect(droppedBytes).toBe(Buffer.byteLength(all) - Buffer.byteLength(kept));
    }),
    { seed: 15 },
  );
});
