// docs/errors.md lists every reason of the catalogue (src/protocol/errors.ts), each with the code it comes with, and
// nothing the catalogue does not have.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ERROR_REASONS, codeOf } from "../../src/protocol/errors.js";
import { REPO_ROOT } from "../support/cli-path.js";

const documented = new Map(
  [...readFileSync(join(REPO_ROOT, "docs", "errors.md"), "utf8").matchAll(/^\| `([A-Z_]+)` \| (-\d+) \|/gm)].map(
    ([, reason, code]) => [reason!, Number(code)],
  ),
);

it("documents every reason with its code, and no other", () => {
  expect(Object.fromEntries(documented)).toEqual(
    Object.fromEntries(ERROR_REASONS.map((reason) => [reason, codeOf(reason)])),
  );
});
