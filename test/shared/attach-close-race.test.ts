// An attach with a replay racing the session's close: the attach is answered (the replay, then live), or refused as a
// closed session's is (-32600 SESSION_CLOSED, or SESSION_BUSY while the close still holds the session's lock), never
// as a worker's fault (-32603 WORKER_FAILED: the worker a replay is read through ends with the session).
import { afterAll, beforeAll, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { connectHost } from "../support/checked-host.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, type RemoteHost } from "../support/remote-host.js";

const ROUNDS = 40;
let host: RemoteHost;
let owner: HostClient;
let observer: HostClient;

beforeAll(async () => {
  host = await startRemoteHost();
  [owner, observer] = await Promise.all([connectHost(host.wsUrl), connectHost(host.wsUrl)]);
});
afterAll(async () => {
  await Promise.all([owner.dispose(), observer.dispose()]);
  expect(await host.stop()).toBe(0);
});

it("is answered, or refused as a closed session's, never as a worker's fault", async () => {
  const outcomes = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    const { sessionId } = await owner.newSession(tempDir());
    // A history of a few pages, read through the worker while the close comes.
    for (let turn = 0; turn < 3; turn++) await owner.prompt(sessionId, `turn ${turn} of round ${round} `.repeat(2_000));
    // The close sent first in half the rounds, the attach in the other half: each may reach the host first.
    const closing = round % 2 === 0 ? owner.close(sessionId) : null;
    const [attached] = await Promise.allSettled([
      observer.attach(sessionId, { replayFrom: { type: "start" } }),
      closing ?? owner.close(sessionId),
    ]);
    const outcome =
      attached.status === "fulfilled"
        ? "attached"
        : `${(attached.reason as { code: number }).code} ${(attached.reason as { data?: { reason?: string } }).data?.reason}`;
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    if (attached.status === "fulfilled") await observer.detach(sessionId);
  }
  expect(
    [...outcomes.keys()].filter(
      (outcome) => !["attached", "-32600 SESSION_CLOSED", "-32600 SESSION_BUSY"].includes(outcome),
    ),
  ).toEqual([]);
}, 180_000);
