// --max-attachments bounds what clients can make the host hold: clients attached to one session, and attachments one
// connection holds. Past either, an attach is refused (-32600 TOO_MANY_ATTACHMENTS, naming which); a detach makes
// room again. An attach answer names a page of participants, this client first, and counts them all: it does not
// grow with every client attached.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { PARTICIPANTS_PAGE } from "../../src/protocol/attach.js";
import { connectHost } from "../support/checked-host.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, type RemoteHost } from "../support/remote-host.js";

const LIMIT = PARTICIPANTS_PAGE + 4;
let host: RemoteHost;
const clients: HostClient[] = [];

beforeAll(async () => {
  host = await startRemoteHost(["--max-attachments", String(LIMIT)]);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  expect(await host.stop()).toBe(0);
});

async function client(): Promise<HostClient> {
  const connected = await connectHost(host.wsUrl);
  clients.push(connected);
  return connected;
}

const refusal = (call: Promise<unknown>) =>
  call.then(
    () => null,
    (error: unknown) => error as { code: number; data: unknown },
  );

it("refuses a session's attach past the limit, answers a page of participants, and makes room on a detach", async () => {
  const owner = await client();
  const { sessionId } = await owner.newSession(tempDir());
  const observers = await Promise.all(Array.from({ length: LIMIT }, () => client()));
  const answers = [];
  for (const observer of observers) answers.push(await observer.attach(sessionId));
  const last = answers.at(-1)!;
  expect(last.participants).toHaveLength(PARTICIPANTS_PAGE);
  expect(last.participants[0]!.attachmentId).toBe(last.attachmentId);
  expect(last.participantCount).toBe(LIMIT);

  const late = await client();
  expect(await refusal(late.attach(sessionId))).toMatchObject({
    code: -32600,
    data: { reason: "TOO_MANY_ATTACHMENTS", of: "session", limit: LIMIT, sessionId },
  });
  await observers[0]!.detach(sessionId);
  expect((await late.attach(sessionId)).participantCount).toBe(LIMIT);
});

it("refuses a connection's attach past the limit, whatever the session", async () => {
  const owner = await client();
  const sessions = await Promise.all(Array.from({ length: LIMIT + 1 }, () => owner.newSession(tempDir())));
  const watcher = await client();
  for (const { sessionId } of sessions.slice(0, LIMIT)) await watcher.attach(sessionId);
  const extra = sessions[LIMIT]!.sessionId;
  expect(await refusal(watcher.attach(extra))).toMatchObject({
    code: -32600,
    data: { reason: "TOO_MANY_ATTACHMENTS", of: "connection", limit: LIMIT },
  });
  await watcher.detach(sessions[0]!.sessionId);
  expect((await watcher.attach(extra)).role).toBe("observer");
});
