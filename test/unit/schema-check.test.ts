// The tests' check of the host's messages against the SDK's zod schema (test/support/checked-host.ts) fails what the
// schema refuses and what it would only accept by dropping or replacing part of it.
import { expect, it } from "vitest";
import * as acp from "../../node_modules/@agentclientprotocol/sdk/dist/v1/unstable/schema/zod.gen.js";
import { schemaViolation } from "../support/checked-host.js";

it("passes a valid message and fails a missing field, a salvaged field and an unknown key", () => {
  const sessionId = "3b241101-e2bb-4255-8caf-4136c566a962";
  const update = {
    sessionUpdate: "subagent_update",
    sessionId,
    title: "Scout",
    state: { state: "idle", stopReason: "end_turn" },
    capabilities: { cancel: {} },
  };
  expect(schemaViolation(acp.zSessionNotification, { sessionId, update })).toBeNull();
  expect(
    schemaViolation(acp.zSessionNotification, { sessionId, update: { ...update, sessionId: undefined } }),
  ).not.toBeNull();
  // The SDK's schema would take this, dropping the title: not valid.
  expect(schemaViolation(acp.zSessionNotification, { sessionId, update: { ...update, title: 5 } })).toMatch(/title/);
  expect(schemaViolation(acp.zForkSessionResponse, { sessionId, modes: null })).toBeNull();
  expect(schemaViolation(acp.zSessionStatusResponse, { status: "open" })).toBeNull();
  expect(schemaViolation(acp.zSessionStatusResponse, { status: 3 })).not.toBeNull();
  expect(schemaViolation(acp.zSessionStatusResponse, { status: "open", since: 1 })).toMatch(/since/);
  expect(
    schemaViolation(acp.zListSessionsResponse, { sessions: [{ sessionId, cwd: "/w", archived: "yes" }] }),
  ).not.toBeNull();
});
