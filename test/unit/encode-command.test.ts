// A command reaches the exec helper as a framed run order (a line, then the escaped text read with -N); each real
// helper must run exactly the text sent, and read the order after it as an order.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { expect, it } from "vitest";
import { frameRun } from "../../src/spawner/exec-helper.js";
import { HELPERS } from "../support/exec-helpers.js";
import { tempDir } from "../support/temp-dirs.js";

it.each(HELPERS)("every framed command reaches the $name helper's bash as the text it was", ({ argv }) => {
  const texts = fc.sample(
    fc.string({
      unit: fc.oneof(
        fc.constantFrom("\\", "\n", "\t", " ", "\r", "\x7f", "\x01", "c", "%", "'", '"', "$", "é", "𝄞"),
        fc.string({ unit: "grapheme", maxLength: 1 }),
      ),
      minLength: 1,
      maxLength: 40,
    }),
    { numRuns: 100, seed: 15 },
  );
  const dir = tempDir("exec-helper-");
  // A quoted here-document prints its body exactly as bash was given it.
  const orders = texts.map((text, i) => frameRun(`c${i}`, `cat <<'END_OF_TEXT'\n${text}\nEND_OF_TEXT`)).join("");
  const [file, ...args] = argv(dir);
  const helper = spawnSync(file!, args, {
    input: orders,
    encoding: "utf8",
    env: { PATH: process.env.PATH, LANG: "C.UTF-8" },
  });
  expect(helper.status).toBe(0);
  expect(helper.stdout.match(/^exit c\d+ 0$/gm)).toHaveLength(texts.length);
  texts.forEach((text, i) => expect(readFileSync(join(dir, `c${i}.out`), "utf8")).toBe(`${text}\n`));
});
