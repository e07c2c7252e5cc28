// The spawner's tail of unsent output: whatever the chunking, it is the last `limit` characters.
import fc from "fast-check";
import { expect, it } from "vitest";
import { OutputTail } from "../../src/spawner/output-tail.js";

it("keeps exactly the last limit characters of what was pushed, however it was cut", () => {
  fc.assert(
    fc.property(fc.array(fc.string({ maxLength: 50 }), { maxLength: 40 }), fc.nat(120), (chunks, limit) => {
      const tail = new OutputTail(limit);
      for (const chunk of chunks) tail.push(chunk);
      const all = chunks.join("");
      expect(tail.text()).toBe(limit === 0 ? "" : all.slice(Math.max(0, all.length - limit)));
    }),
    { seed: 15 },
  );
});
