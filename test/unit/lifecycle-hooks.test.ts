import pino from "pino";
import { expect, it } from "vitest";
import { LifecycleHooks } from "../../src/host/session/lifecycle-hooks.js";

it("tells every listener, logs one that throws, and stops telling one that was removed", () => {
  const lines: string[] = [];
  const hooks = new LifecycleHooks(pino({ level: "error" }, { write: (line: string) => void lines.push(line) }));
  const told: string[] = [];
  hooks.on("turnEnded", () => {
    throw new Error("listener fault");
  });
  const off = hooks.on("turnEnded", ({ sessionId, outcome }) => told.push(`${sessionId}:${outcome}`));
  hooks.on("sessionClosed", ({ sessionId }) => told.push(`closed ${sessionId}`));

  hooks.emit("turnEnded", { sessionId: "a", outcome: "end_turn", seconds: 0.1 });
  hooks.emit("sessionClosed", { sessionId: "a" });
  off();
  hooks.emit("turnEnded", { sessionId: "b", outcome: "cancelled", seconds: 0.2 });

  expect(told).toEqual(["a:end_turn", "closed a"]);
  expect(lines.map((line) => (JSON.parse(line) as { hook: string; msg: string }).hook)).toEqual([
    "turnEnded",
    "turnEnded",
  ]);
});
