// A command reaches the exec helper as one word of a line; bash's printf %b must give back exactly the text sent.
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { expect, it } from "vitest";
import { encodeCommand } from "../../src/spawner/exec-helper.js";

it("printf %b in bash turns every encoded command back into the text it was", () => {
  const commands = fc.sample(fc.string({ unit: fc.oneof(fc.constantFrom("\\", "\n", "\t", " ", "\r", "\x7f", "\x01", "c", "%", "'", '"'), fc.string({ unit: "grapheme", maxLength: 1 })), minLength: 1, maxLength: 40 }).filter((s) => !s.includes("\0")), { numRuns: 200, seed: 15 });
  const input = commands.map((command) => `run id ${encodeCommand(command)}\n`).join("");
  const decoded = spawnSync("bash", ["-c", `while read -r op a b; do printf -v cmd '%b' "$b"; printf '%s\\0' "$cmd"; done`], { input, encoding: "utf8" });
  expect(decoded.status).toBe(0);
  expect(decoded.stdout.split("\0").slice(0, -1)).toEqual(commands);
});
