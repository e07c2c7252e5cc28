// The state dir's size the metrics report: the space its files and directories take, as du counts it.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { diskBytes } from "../../src/store/dir/state-dir-size.js";
import { tempDir } from "../support/temp-dirs.js";

it("counts what du counts, nested directories included", async () => {
  const root = tempDir("ash-size-");
  for (let d = 0; d < 5; d++) {
    mkdirSync(join(root, `d${d}`, "inner"), { recursive: true });
    for (let f = 0; f < 20; f++)
      writeFileSync(join(root, `d${d}`, f % 2 ? "inner" : "", `f${f}`), "x".repeat(f * 1000));
  }
  const du = Number(execFileSync("du", ["-s", "-B1", root], { encoding: "utf8" }).split(/\s/)[0]);
  expect(await diskBytes(root)).toBe(du);
  expect(du).toBeGreaterThan(190_000);
});
