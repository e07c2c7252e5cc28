// Who may do what on a shared session, through a real host with tenants: an observer may read, never change anything
// (-32600 OBSERVER_ONLY); another tenant's attach is answered exactly as an unknown id's; two controllers answering
// the same permission at once: exactly one answer takes effect, every time, and everyone sees the outcome; an observer
// that stops reading is detached (OBSERVER_TOO_SLOW, with its last event id) while the turn runs on, and may attach
// again from there.
import type { RequestPermissionRequest, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { HostClient, PermissionPolicy } from "../../src/client/index.js";
import { DETACHED_NOTIFICATION, type DetachedNotification } from "../../src/protocol/attach.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, tokensFile, type RemoteHost } from "../support/remote-host.js";
import { connectHost } from "../support/checked-host.js";
import { openStalledClient } from "../support/stalled-client.js";
import { bash, fileSaidTimes, script, waitFor } from "../support/tools.js";

const QUEUE_BYTES = 64 * 1024;
let host: RemoteHost;
let tokens: ReturnType<typeof tokensFile>;
const clients: HostClient[] = [];

beforeAll(async () => {
  tokens = tokensFile(["alice", "bob"], []);
  host = await startRemoteHost([
    "--tokens-file",
    tokens.path,
    "--max-attach-queue-bytes",
    String(QUEUE_BYTES),
    "--max-output-stall-ms",
    "600000",
  ]);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  expect(await host.stop()).toBe(0);
});

async function client(token: string, permission: PermissionPolicy = "deny"): Promise<HostClient> {
  const connected = await connectHost(host.wsUrl, { token, permission });
  clients.push(connected);
  return connected;
}

const errorOf = async (call: Promise<unknown>) => {
  try {
    await call;
  } catch (error) {
    const { code, message, data } = error as { code: number; message: string; data: unknown };
    return { code, message, data };
  }
  throw new Error("expected the call to fail");
};

it("an observer may not close, delete, archive or retitle a session, owned or not: nothing changes", async () => {
  const owner = await client(tokens.tokens.alice!);
  const { sessionId } = await owner.newSession(tempDir());
  await owner.prompt(sessionId, "a first turn");
  const title = await owner.setTitle(sessionId, "the owner's title");
  const observer = await client(tokens.tokens.alice!);
  await observer.attach(sessionId, { role: "observer" });
  const refusedAll = async () => {
    for (const refused of [
      observer.close(sessionId),
      observer.delete(sessionId),
      observer.archive(sessionId),
      observer.setTitle(sessionId, "an observer's title"),
    ])
      expect(await errorOf(refused)).toMatchObject({ code: -32600, data: { reason: "OBSERVER_ONLY", sessionId } });
  };
  await refusedAll();
  expect(await owner.status(sessionId)).toBe("open");
  // Its owner gone, the session is held by no connection: an observer still may not end it.
  await owner.dispose();
  await refusedAll();
  const checker = await client(tokens.tokens.alice!);
  expect(await checker.status(sessionId)).toBe("open");
  const listed = await checker.list();
  expect(listed.sessions.find((session) => session.sessionId === sessionId)?.title).toBe(title);
  // A controller may.
  await checker.attach(sessionId, { role: "controller" });
  await checker.close(sessionId);
  expect(await checker.status(sessionId)).toBe("saved");
});

it("an observer reads and changes nothing; a controller may; another tenant gets an unknown id's answer", async () => {
  const owner = await client(tokens.tokens.alice!);
  const { sessionId } = await owner.newSession(tempDir());
  const observer = await client(tokens.tokens.alice!);
  const seen: SessionUpdate[] = [];
  observer.onSessionUpdate(sessionId, (update) => seen.push(update));
  const attached = await observer.attach(sessionId, { role: "observer" });
  expect(attached).toMatchObject({ role: "observer", turnRunning: false, participants: [{ role: "observer" }] });

  for (const refused of [
    observer.prompt(sessionId, "may I?"),
    observer.setMode(sessionId, "auto"),
    observer.setConfigOption(sessionId, "model", "scripted"),
  ])
    expect(await errorOf(refused)).toMatchObject({ code: -32600, data: { reason: "OBSERVER_ONLY", sessionId } });
  // Its cancel (a notification) touches nothing: the owner's turn ends as it would have.
  const running = owner.prompt(sessionId, script(bash("sleep 0.3"), { say: "slept" }));
  await waitFor("the turn to run", () => seen.some((update) => update.sessionUpdate === "tool_call"));
  await observer.cancel(sessionId);
  expect((await running).stopReason).toBe("end_turn");

  const controller = await client(tokens.tokens.alice!, "allow");
  await controller.attach(sessionId, { role: "controller" });
  expect((await controller.prompt(sessionId, "from a controller")).text).toBe("You said: from a controller");
  await controller.setMode(sessionId, "auto");

  const bob = await client(tokens.tokens.bob!);
  const foreign = await errorOf(bob.attach(sessionId, { role: "observer" }));
  const unknownId = randomUUID();
  const unknown = await errorOf(bob.attach(unknownId, { role: "observer" }));
  expect(JSON.stringify(foreign).replaceAll(sessionId, "ID")).toBe(JSON.stringify(unknown).replaceAll(unknownId, "ID"));
  expect(
    await errorOf(bob.detach(sessionId).then(() => bob.request("session/detach", { sessionId, attachmentId: "x" }))),
  ).toMatchObject({
    code: unknown.code,
  });
});

it("two controllers answer one permission at once: exactly one answer takes effect, every time", async () => {
  const answered: Record<string, number> = { allow: 0, reject: 0 };
  const answering =
    (optionId: "allow_once" | "reject_once"): PermissionPolicy =>
    (request: RequestPermissionRequest) => {
      answered[optionId === "allow_once" ? "allow" : "reject"]!++;
      void request;
      return { outcome: { outcome: "selected", optionId } };
    };
  const cwd = tempDir();
  const owner = await client(tokens.tokens.alice!, answering("allow_once"));
  const { sessionId } = await owner.newSession(cwd);
  const second = await client(tokens.tokens.alice!, answering("reject_once"));
  await second.attach(sessionId, { role: "controller" });
  const observer = await client(tokens.tokens.alice!);
  const observed: SessionUpdate[] = [];
  observer.onSessionUpdate(sessionId, (update) => observed.push(update));
  await observer.attach(sessionId);

  const rounds = 200;
  const outcomes: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const result = await owner.prompt(sessionId, script(bash(`echo ${round} >> ran.txt`)));
    expect(result.toolCalls).toHaveLength(1);
    outcomes.push(result.toolCalls[0]!.status ?? "");
  }
  // Both were asked every time; the log holds one outcome per call, and the command ran exactly when it was allowed.
  expect(answered.allow! + answered.reject!).toBe(2 * rounds);
  const ran = readFileSync(join(cwd, "ran.txt"), "utf8").trim().split("\n").map(Number);
  const allowed = outcomes.flatMap((status, round) => (status === "completed" ? [round] : []));
  expect(ran).toEqual(allowed);
  expect(outcomes.every((status) => status === "completed" || status === "failed")).toBe(true);
  // The observer saw every call's outcome as the controllers did.
  await waitFor(
    "the observer to have the last outcome",
    () =>
      observed.filter((u) => u.sessionUpdate === "tool_call_update" && u.status !== "in_progress").length === rounds,
  );
  expect(
    observed
      .filter((u) => u.sessionUpdate === "tool_call_update" && u.status !== "in_progress")
      .map((u) => (u as { status: string }).status),
  ).toEqual(outcomes);
}, 120_000);

it("a controller that attaches while a permission waits is asked it, and its answer wins", async () => {
  const cwd = tempDir();
  let ownerAsked = 0;
  // The owner is asked and never answers: only a controller that comes later can.
  const owner = await client(tokens.tokens.alice!, () => {
    ownerAsked++;
    return new Promise(() => {});
  });
  const { sessionId } = await owner.newSession(cwd);
  const running = owner.prompt(sessionId, script(bash("echo allowed-late > late.txt"), { say: "ran it" }));
  await waitFor("the owner to be asked", () => ownerAsked === 1);
  let lateAsked = 0;
  const late = await client(tokens.tokens.alice!, () => {
    lateAsked++;
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  });
  await late.attach(sessionId, { role: "controller" });
  const result = await running;
  expect(result.toolCalls.map((call) => call.status)).toEqual(["completed"]);
  expect(readFileSync(join(cwd, "late.txt"), "utf8")).toBe("allowed-late\n");
  expect([ownerAsked, lateAsked]).toEqual([1, 1]);
});

it("the first controller's answer wins at once; the request put to the others is withdrawn", async () => {
  const cwd = tempDir();
  // The owner rejects at once; a second controller is asked and never answers.
  const owner = await client(tokens.tokens.alice!, "deny");
  const { sessionId } = await owner.newSession(cwd);
  const silent = await openStalledClient(host.wsUrl, { Authorization: `Bearer ${tokens.tokens.alice}` });
  try {
    await silent.call(0, "initialize", { protocolVersion: 1, clientCapabilities: {} });
    await silent.call(1, "session/attach", { sessionId, role: "controller" });
    // Decided by the first answer: the turn does not wait for the silent one's.
    const result = await owner.prompt(sessionId, script(bash("echo ran > ran.txt"), { say: "done" }));
    expect(result.toolCalls.map((call) => call.status)).toEqual(["failed"]);
    expect(existsSync(join(cwd, "ran.txt"))).toBe(false);
    const [asked] = silent.requests("session/request_permission");
    expect(asked).toBeDefined();
    await waitFor("the silent controller's request to be withdrawn", () =>
      silent
        .notifications("$/cancel_request")
        .some((params) => (params as { requestId: unknown }).requestId === asked!.id),
    );
  } finally {
    silent.socket.destroy();
  }
});

it("an observer that stops reading is detached with its last event id; the turn runs on; it attaches again from there", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "big.txt"), "y".repeat(32 * 1024));
  const owner = await client(tokens.tokens.alice!, "allow");
  const { sessionId } = await owner.newSession(cwd);
  await owner.setMode(sessionId, "auto");
  const slow = await openStalledClient(host.wsUrl, { Authorization: `Bearer ${tokens.tokens.alice}` });
  await slow.call(0, "initialize", { protocolVersion: 1, clientCapabilities: {} });
  await slow.call(1, "session/attach", { sessionId, role: "observer" });
  slow.stopReading();

  const result = await owner.prompt(sessionId, fileSaidTimes("big.txt", 200));
  expect(result.stopReason).toBe("end_turn");
  await waitFor("the host to say it detached the observer", () =>
    /attached client fell further behind than its queue holds: detached/.test(host.stderr()),
  );
  slow.resumeReading();
  await waitFor("the detach notice", () => slow.notifications(DETACHED_NOTIFICATION).length > 0, 60_000);
  const notice = slow.notifications(DETACHED_NOTIFICATION)[0] as DetachedNotification;
  expect(notice).toMatchObject({ sessionId, error: { data: { reason: "OBSERVER_TOO_SLOW" } } });
  const lastEventId = notice.error.data.lastEventId;
  // The notice names the last update the client was sent, not one it never had.
  const eventIdOf = (update: SessionUpdate) => update._meta?.["eventId"] as string;
  const delivered = (slow.notifications("session/update") as Array<{ update: SessionUpdate }>).map(({ update }) =>
    eventIdOf(update),
  );
  expect(delivered.length).toBeGreaterThan(0);
  expect(delivered.at(-1)).toBe(lastEventId);
  slow.socket.destroy();

  // From where it stopped, a reader gets the rest: together, every update of the turn once, in order.
  const again = await client(tokens.tokens.alice!);
  const rest: SessionUpdate[] = [];
  again.onSessionUpdate(sessionId, (update) => rest.push(update));
  await again.attach(sessionId, {
    replayFrom: lastEventId ? { type: "after_event", eventId: lastEventId } : { type: "start" },
  });
  expect(rest.at(-1)).toEqual(result.updates.at(-1)!);
  const seen = [...delivered, ...rest.map(eventIdOf)];
  expect(new Set(seen).size).toBe(seen.length);
  const owners = result.updates.map(eventIdOf);
  expect(seen.filter((id) => owners.includes(id))).toEqual(owners);
}, 120_000);
