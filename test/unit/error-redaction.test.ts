// ErrorRedaction: an error's message and data name none of the secrets, the longest replaced first (a path inside
// another); an answer without an error passes as the very same object.
import { expect, it } from "vitest";
import { ErrorRedaction } from "../../src/remote/error-redaction.js";

it("replaces every secret in an error, nested path first, and leaves other messages untouched", () => {
  const told: unknown[] = [];
  const redaction = new ErrorRedaction(
    [
      { text: "/srv/state", shownAs: "<state dir>" },
      { text: "/srv/state/tokens", shownAs: "<tokens file>" },
    ],
    (original) => told.push(original),
  );
  const failure = {
    jsonrpc: "2.0" as const,
    id: 1,
    error: { code: -32603, message: "cannot open /srv/state/tokens and /srv/state/x", data: { path: "/srv/state" } },
  };
  expect(redaction.apply(failure)).toEqual({
    ...failure,
    error: { code: -32603, message: "cannot open <tokens file> and <state dir>/x", data: { path: "<state dir>" } },
  });
  expect(told).toEqual([failure.error]);
  const result = { jsonrpc: "2.0" as const, id: 2, result: { path: "/srv/state" } };
  expect(redaction.apply(result)).toBe(result);
});
