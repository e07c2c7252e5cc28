// hasReason: an error of the catalogue is told by its data.reason, not by a raw code several reasons share.
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { expect, it } from "vitest";
import { hasReason, hostError, notFound } from "../../src/request-errors.js";

it("hasReason matches the catalogue's reason, and nothing else that carries the same code", () => {
  expect(hasReason(notFound("s", "no such session"), "SESSION_NOT_FOUND")).toBe(true);
  expect(hasReason(hostError("SESSION_BUSY", "busy"), "SESSION_NOT_FOUND")).toBe(false);
  expect(hasReason(new RequestError(-32002, "a bare -32002"), "SESSION_NOT_FOUND")).toBe(false);
  expect(hasReason(new Error("SESSION_NOT_FOUND"), "SESSION_NOT_FOUND")).toBe(false);
});
