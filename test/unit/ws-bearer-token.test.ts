// The token a browser's WebSocket upgrade carries as a subprotocol entry, and the subprotocol the host echoes: never
// the token's entry.
import type { IncomingMessage } from "node:http";
import { expect, it } from "vitest";
import { ACP_SUBPROTOCOL, BEARER_SUBPROTOCOL_PREFIX } from "../../src/protocol/ws-bearer.js";
import { chooseSubprotocol, sameOrigin, subprotocolToken } from "../../src/remote/ws-bearer-token.js";

const upgrade = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const entry = (token: string) => BEARER_SUBPROTOCOL_PREFIX + Buffer.from(token).toString("base64url");

it("reads the token of the bearer entry, whatever its place among the offered subprotocols", () => {
  const token = "tök/en+with=odd chars";
  expect(subprotocolToken(upgrade({ "sec-websocket-protocol": `${ACP_SUBPROTOCOL}, ${entry(token)}` }))).toBe(token);
  expect(subprotocolToken(upgrade({ "sec-websocket-protocol": `${entry(token)},${ACP_SUBPROTOCOL}` }))).toBe(token);
  expect(subprotocolToken(upgrade({ "sec-websocket-protocol": ACP_SUBPROTOCOL }))).toBeNull();
  expect(subprotocolToken(upgrade({}))).toBeNull();
  expect(
    subprotocolToken(upgrade({ "sec-websocket-protocol": `${BEARER_SUBPROTOCOL_PREFIX}not+base64url` })),
  ).toBeNull();
  expect(subprotocolToken(upgrade({ "sec-websocket-protocol": BEARER_SUBPROTOCOL_PREFIX }))).toBeNull();
});

it("echoes ACP's subprotocol, else another that carries no token, never the token's", () => {
  expect(chooseSubprotocol(new Set([entry("t"), ACP_SUBPROTOCOL]))).toBe(ACP_SUBPROTOCOL);
  expect(chooseSubprotocol(new Set([entry("t"), "other"]))).toBe("other");
  expect(chooseSubprotocol(new Set([entry("t")]))).toBe(false);
});

it("an upgrade from a page of another origin is not the dashboard's", () => {
  expect(sameOrigin(upgrade({ host: "h:1", origin: "http://h:1" }))).toBe(true);
  expect(sameOrigin(upgrade({ host: "h:1" }))).toBe(true);
  expect(sameOrigin(upgrade({ host: "h:1", origin: "http://evil:1" }))).toBe(false);
  expect(sameOrigin(upgrade({ host: "h:1", origin: "null" }))).toBe(false);
});
