// RecentUpdates lets an update go as soon as the byte bound drops it: nothing it dropped stays reachable from it
// (it held up to 1,024 dropped updates, ~98 MB of a busy session's output, until it compacted).
import v8 from "node:v8";
import vm from "node:vm";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { expect, it } from "vitest";
import { RecentUpdates } from "../../src/host/attach/recent-updates.js";
import type { ShownUpdate } from "../../src/host/attach/shown-update.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

function shown(turn: number, bytes: number): ShownUpdate {
  const update = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } } as SessionUpdate;
  return { position: [turn, 0, 0], wire: null, update, bytes, audience: "all", echo: false };
}

it("keeps no update the byte bound dropped", async () => {
  const recent = new RecentUpdates(1024 * 1024, [0, 0, 0]);
  const dropped: Array<WeakRef<ShownUpdate>> = [];
  // 100 updates of 100 KiB against a bound of 1 MiB: the first 90 are dropped.
  for (let turn = 1; turn <= 100; turn++) {
    const update = shown(turn, 100 * 1024);
    if (turn <= 50) dropped.push(new WeakRef(update));
    recent.add(update);
  }
  // A task boundary first: a WeakRef's target stays alive for the rest of the job that made it.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  expect(dropped.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
  // What it still holds answers a cursor exactly (the ten newest); an older cursor is the log's to answer.
  expect(recent.after([90, 0, 0])?.map((update) => update.position[0])).toEqual([
    91, 92, 93, 94, 95, 96, 97, 98, 99, 100,
  ]);
  expect(recent.after([89, 0, 0])).toBeNull();
});
