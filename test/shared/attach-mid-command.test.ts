// An attach while a command runs shows the turn so far: the replay from the log, then what the log does not hold yet
// (the running command's status, running, and its output up to now), then live, with no gap and nothing twice. Before,
// such a client saw the command pending and only the lines printed after it attached.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionUpdate, ToolCallUpdate } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { connectHost } from "../support/checked-host.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, type RemoteHost } from "../support/remote-host.js";
import { bash, script, waitFor } from "../support/tools.js";

let host: RemoteHost;
let owner: HostClient;
let observer: HostClient;

beforeAll(async () => {
  host = await startRemoteHost(["--default-mode", "auto"]);
  [owner, observer] = await Promise.all([connectHost(host.wsUrl), connectHost(host.wsUrl)]);
});
afterAll(async () => {
  await Promise.all([owner.dispose(), observer.dispose()]);
  expect(await host.stop()).toBe(0);
});

const outputOf = (updates: SessionUpdate[]) =>
  updates
    .filter((update): update is SessionUpdate & ToolCallUpdate => update.sessionUpdate === "tool_call_update")
    .flatMap((update) => update.content ?? [])
    .map((item) => (item.type === "content" && item.content.type === "text" ? item.content.text : ""))
    .join("");

it("shows the running command's output so far and its status, then the rest live", async () => {
  const cwd = tempDir();
  const { sessionId } = await owner.newSession(cwd);
  const seenByOwner: SessionUpdate[] = [];
  const running = owner.prompt(
    sessionId,
    script(bash("for i in 1 2 3 4 5; do echo line-$i; done; while [ ! -e gate ]; do sleep 0.05; done; echo line-6"), {
      say: "done",
    }),
    { onUpdate: (update) => seenByOwner.push(update) },
  );
  await waitFor("the first five lines", () => outputOf(seenByOwner).includes("line-5"));
  expect(existsSync(join(cwd, "gate"))).toBe(false);

  const seen: SessionUpdate[] = [];
  observer.onSessionUpdate(sessionId, (update) => seen.push(update));
  const attached = await observer.attach(sessionId, { replayFrom: { type: "start" } });
  expect(attached.turnRunning).toBe(true);
  // Replayed by the time the attach is answered: the command, running, and its five lines.
  const call = seen.find((update) => update.sessionUpdate === "tool_call");
  expect(call).toBeDefined();
  const statuses = seen
    .filter((update) => update.sessionUpdate === "tool_call_update" && update.status)
    .map((update) => (update as ToolCallUpdate).status);
  expect(statuses).toEqual(["in_progress"]);
  expect(outputOf(seen)).toBe("line-1\nline-2\nline-3\nline-4\nline-5\n");

  writeFileSync(join(cwd, "gate"), "");
  expect((await running).stopReason).toBe("end_turn");
  await waitFor("the turn's last update", () => seen.some((update) => update.sessionUpdate === "agent_message_chunk"));
  // Every line once, in order (the deltas; the completed update carries the whole result again), the status
  // through to its end.
  const beforeItsEnd = seen.filter(
    (update) => update.sessionUpdate === "tool_call_update" && update.status !== "completed",
  );
  expect(outputOf(beforeItsEnd)).toBe("line-1\nline-2\nline-3\nline-4\nline-5\nline-6\n");
  expect(
    seen
      .filter((update) => update.sessionUpdate === "tool_call_update" && update.status)
      .map((update) => (update as ToolCallUpdate).status),
  ).toEqual(["in_progress", "completed"]);
});
