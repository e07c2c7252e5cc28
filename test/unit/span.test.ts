// A worker's spans: none under an untraced turn; under a traced one, each a child of what opened it, in the turn's
// trace, handed on once when it ends, with a failure's error.type and description.
import { expect, it } from "vitest";
import type { SpanData } from "../../src/protocol/trace.js";
import { traceRoot } from "../../workers/trace/span.js";

const parent = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" };

it("records nothing under an untraced turn", () => {
  expect(traceRoot(null, () => {})).toBeNull();
});

it("nests spans under the turn's span and each other, in its trace, and hands each on once", () => {
  const ended: SpanData[] = [];
  const root = traceRoot(parent, (span) => ended.push(span))!;
  const tool = root.open("execute_tool bash", "internal", { "gen_ai.tool.name": "bash" });
  const command = tool.open("sandbox.exec", "internal", {});
  command.set("process.exit.code", 0).end();
  command.end();
  tool.event("acp_host.permission.asked").end();
  expect(ended.map((span) => span.name)).toEqual(["sandbox.exec", "execute_tool bash"]);
  const [commandSpan, toolSpan] = ended as [SpanData, SpanData];
  expect(toolSpan).toMatchObject({ traceId: parent.traceId, parentSpanId: parent.spanId, kind: "internal" });
  expect(commandSpan).toMatchObject({ traceId: parent.traceId, parentSpanId: toolSpan.spanId });
  expect(commandSpan.attributes).toEqual({ "process.exit.code": 0 });
  expect(toolSpan.spanId).toMatch(/^[0-9a-f]{16}$/);
  expect(toolSpan.spanId).not.toBe(commandSpan.spanId);
  expect(toolSpan.events.map((event) => event.name)).toEqual(["acp_host.permission.asked"]);
  expect(toolSpan.endMs).toBeGreaterThanOrEqual(toolSpan.startMs);
});

it("marks a failed span with error.type and a description", () => {
  const ended: SpanData[] = [];
  const root = traceRoot(parent, (span) => ended.push(span))!;
  root.open("chat m", "client", {}).fail("503", "HTTP 503: overloaded").end();
  expect(ended[0]).toMatchObject({
    kind: "client",
    error: "HTTP 503: overloaded",
    attributes: { "error.type": "503" },
  });
});
