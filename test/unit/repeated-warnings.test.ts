// Warnings a client can repeat at will: the first of a kind from an address is logged, the repeats are counted and
// said in one line per period; another address or kind is logged on its own.
import { expect, it, vi } from "vitest";
import type { Logger } from "../../src/logger.js";
import { RepeatedWarnings } from "../../src/remote/repeated-warnings.js";

it("logs the first of a kind per address, then one line with the count per period", async () => {
  const lines: Array<{ fields: Record<string, unknown>; msg: string }> = [];
  const log = {
    warn: (fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg }),
  } as unknown as Logger;
  const warnings = new RepeatedWarnings(log, 50);
  for (let i = 0; i < 100; i++) warnings.warn("10.0.0.1", "unauthorized", { n: i }, "refused");
  warnings.warn("10.0.0.2", "unauthorized", { n: 0 }, "refused");
  warnings.warn("10.0.0.1", "binary frame", {}, "dropped");
  expect(lines.map((line) => [line.fields.remote, line.msg])).toEqual([
    ["10.0.0.1", "refused"],
    ["10.0.0.2", "refused"],
    ["10.0.0.1", "dropped"],
  ]);
  await vi.waitFor(() => expect(lines.length).toBeGreaterThan(3));
  expect(lines.slice(3)).toEqual([
    { fields: { remote: "10.0.0.1", n: 99, repeats: 99, periodMs: 50 }, msg: "refused (repeated)" },
  ]);
});
