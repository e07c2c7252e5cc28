// The tokens file and token matching, in process: parsing, hashing, bearer headers, constant-time lookup.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  bearerToken,
  hashToken,
  matchToken,
  newToken,
  parseTokens,
  tenantWeights,
  TokensFileError,
} from "../../src/remote/tokens.js";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

describe("tokens file", () => {
  it("parses tenant lines, skipping blanks and comments; a tenant may have several tokens", () => {
    const text = `# team tokens\nalpha ${sha("a1")}\n\n  beta   ${sha("b").toUpperCase()}  \nalpha ${sha("a2")}\n`;
    expect(parseTokens(text)).toEqual([
      { tenant: "alpha", hash: sha("a1"), operator: false, roots: [] },
      { tenant: "beta", hash: sha("b"), operator: false, roots: [] },
      { tenant: "alpha", hash: sha("a2"), operator: false, roots: [] },
    ]);
  });

  it("a third column `operator` marks the host operator's tokens", () => {
    expect(parseTokens(`ops ${sha("o")} operator\nalpha ${sha("a")}\n`)).toEqual([
      { tenant: "ops", hash: sha("o"), operator: true, roots: [] },
      { tenant: "alpha", hash: sha("a"), operator: false, roots: [] },
    ]);
  });

  it("`weight=N` gives a tenant's share of a provider endpoint, beside `operator` or alone", () => {
    const entries = parseTokens(`ops ${sha("o")} operator weight=2\nalpha ${sha("a")} weight=0.5\nbeta ${sha("b")}\n`);
    expect(entries.map((entry) => entry.weight)).toEqual([2, 0.5, undefined]);
    expect(tenantWeights(entries)).toEqual({ ops: 2, alpha: 0.5 });
    expect(() => parseTokens(`alpha ${sha("a")} weight=0`)).toThrow("line 1: a weight is a number above 0");
  });

  it.each([
    ["alpha", "line 1: expected"],
    [`alpha ${sha("a")} extra`, 'line 1: the columns after the hash may only be "operator", "weight=N" or root=/dir'],
    [`alpha ${sha("a")} operator extra`, "line 1: the columns after the hash may only be"],
    [`alpha not-a-hash`, "line 1: the hash must be 64 hex digits"],
    [`# ok\n-bad ${sha("a")}`, "line 2: tenant name"],
    [`a ${sha("x")}\nb ${sha("x")}`, "line 2: this hash is already on another line"],
  ])("refuses %j naming the line", (text, message) => {
    expect(() => parseTokens(text)).toThrow(TokensFileError);
    expect(() => parseTokens(text)).toThrow(message);
  });
});

describe("token matching", () => {
  const entries = parseTokens(`alpha ${hashToken("token-a")}\nbeta ${hashToken("token-b")}\n`);

  it("finds the entry whose hash is the token's sha256, and nothing for another token", () => {
    expect(hashToken("token-a")).toBe(sha("token-a"));
    expect(matchToken(entries, "token-b")).toEqual({
      tenant: "beta",
      hash: sha("token-b"),
      operator: false,
      roots: [],
    });
    expect(matchToken(entries, "token-a")?.tenant).toBe("alpha");
    expect(matchToken(entries, "token-c")).toBeNull();
    expect(matchToken(entries, "")).toBeNull();
    expect(matchToken([], "token-a")).toBeNull();
  });

  it("never matches a hash presented as the token", () => {
    expect(matchToken(entries, sha("token-a"))).toBeNull();
  });

  it("reads only Bearer authorization headers", () => {
    expect(bearerToken("Bearer abc.DEF-123")).toBe("abc.DEF-123");
    expect(bearerToken("bearer abc")).toBe("abc");
    expect(bearerToken(undefined)).toBeNull();
    expect(bearerToken("Basic abc")).toBeNull();
    expect(bearerToken("Bearer")).toBeNull();
    expect(bearerToken("Bearer a b")).toBeNull();
  });

  it("mints distinct 256-bit tokens", () => {
    const a = newToken();
    expect(Buffer.from(a, "base64url")).toHaveLength(32);
    expect(newToken()).not.toBe(a);
  });
});
