// The tokens file's `root=` columns: a tenant's roots are those of all its lines; a relative root is refused.
import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { parseTokens, rootsByTenant, TokensFileError } from "../../src/remote/tokens.js";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

it("root= columns name a tenant's roots, beside or without the operator mark, gathered over its lines", () => {
  const entries = parseTokens(
    `alpha ${sha("a1")} root=/srv/a root=/srv/shared\nops ${sha("o")} operator root=/srv/ops\n` +
      `alpha ${sha("a2")} root=/srv/a\nbeta ${sha("b")}\n`,
  );
  expect(entries.map((entry) => [entry.tenant, entry.operator, entry.roots])).toEqual([
    ["alpha", false, ["/srv/a", "/srv/shared"]],
    ["ops", true, ["/srv/ops"]],
    ["alpha", false, ["/srv/a"]],
    ["beta", false, []],
  ]);
  expect(Object.fromEntries(rootsByTenant(entries))).toEqual({
    alpha: ["/srv/a", "/srv/shared"],
    ops: ["/srv/ops"],
    beta: [],
  });
  expect(() => parseTokens(`alpha ${sha("a")} root=srv/a`)).toThrow(TokensFileError);
  expect(() => parseTokens(`alpha ${sha("a")} root=srv/a`)).toThrow("line 1: a root must be an absolute path");
  expect(() => parseTokens(`alpha ${sha("a")} operator operator`)).toThrow("line 1: expected");
});
