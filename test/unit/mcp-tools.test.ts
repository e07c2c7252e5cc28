// MCP tools are offered as mcp__<server>__<tool>, in the characters and length model APIs take.
import fc from "fast-check";
import { expect, it } from "vitest";
import { MAX_TOOL_NAME, offeredName } from "../../workers/mcp/mcp-tools.js";

it("is at most 64 of [A-Za-z0-9_-], keeps short names whole, and keeps two different long names apart", () => {
  expect(offeredName("everything", "echo")).toBe("mcp__everything__echo");
  fc.assert(
    fc.property(
      fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
      fc.string({ minLength: 1, maxLength: 120 }),
      fc.string({ minLength: 1, maxLength: 120 }),
      (server, a, b) => {
        const [nameA, nameB] = [offeredName(server, a), offeredName(server, b)];
        expect(nameA).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(nameA.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
        if (`mcp__${server}__${a}`.length <= MAX_TOOL_NAME && /^[A-Za-z0-9_-]+$/.test(a))
          expect(nameA).toBe(`mcp__${server}__${a}`);
        if (a.replace(/[^A-Za-z0-9_-]/g, "_") !== b.replace(/[^A-Za-z0-9_-]/g, "_")) expect(nameA).not.toBe(nameB);
      },
    ),
    { seed: 15 },
  );
});
