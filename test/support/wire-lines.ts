// Generators of hostile stdin lines for the wire fuzz: well-formed frames of every method with wrong values put
// into their fields, huge and deeply nested values, broken JSON and UTF-8, stray responses and unknown methods.
import fc from "fast-check";

/** One line as bytes (no newline), and what it claims to be, for the reproducer. */
export interface FuzzLine {
  bytes: Buffer;
  kind: string;
}

export const METHODS = [
  "initialize",
  "authenticate",
  "session/new",
  "session/load",
  "session/resume",
  "session/list",
  "session/close",
  "session/delete",
  "session/prompt",
  "session/cancel",
  "session/set_mode",
  "session/set_config_option",
  "session/fork",
  "session/status",
  "session/set_title",
  "session/archive",
  "session/unarchive",
  "_host/stats",
] as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Params that pass validation, for each method, so that one changed field is what the host sees wrong. */
function validParams(method: string, cwd: string, sessionId: string): { [key: string]: Json } {
  const prompt = [{ type: "text", text: "fuzz" }];
  switch (method) {
    case "initialize":
      return { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } };
    case "session/new":
      return { cwd, mcpServers: [], systemPrompt: { mode: "append", content: [{ type: "text", text: "fuzz" }] } };
    case "session/load":
    case "session/resume":
    case "session/fork":
      return { sessionId, cwd, mcpServers: [] };
    case "session/set_title":
      return { sessionId, title: "fuzz" };
    case "session/list":
      return { cwd };
    case "session/prompt":
      return { sessionId, prompt };
    case "session/set_mode":
      return { sessionId, modeId: "auto" };
    case "session/set_config_option":
      return { sessionId, configId: "model", value: "scripted" };
    case "authenticate":
      return { methodId: "none" };
    default:
      return { sessionId };
  }
}

/** A value of a random type, sometimes big. */
const wrongValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 0, 1e308),
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 50 }),
  fc.constantFrom("", "../..", "/", "/proc/self/root", "\u0000", "\ud800", "a".repeat(70_000)),
  fc.array(fc.integer(), { maxLength: 20 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), { maxKeys: 5 }),
  fc.integer({ min: 1_000, max: 120_000 }).map((n) => new Array<Json>(n).fill(0)),
  fc.integer({ min: 10, max: 100_000 }).map((depth) => `${DEEP}${depth}`),
);

// Deep nesting is spliced in as text: JSON.stringify itself overflows the stack on it.
const DEEP = "\u0001deep:";
const DEEP_TOKEN = /"\\u0001deep:(\d+)"/g;

function nestedText(depth: number): string {
  return `${'{"d":['.repeat(depth)}${"]}".repeat(depth)}`;
}

export function toLine(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value).replace(DEEP_TOKEN, (_, depth: string) => nestedText(Number(depth))));
}

/** Replaces the value at one path of an object (the last key made up when the path runs out). */
function setAt(target: { [key: string]: Json }, path: number[], value: Json): void {
  let node: { [key: string]: Json } = target;
  for (const step of path) {
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const key = keys[step % keys.length]!;
    const child = node[key];
    if (child === null || typeof child !== "object" || Array.isArray(child) || step % 3 === 0) {
      node[key] = value;
      return;
    }
    node = child;
  }
  node[`x${path.length}`] = value;
}

const id = fc.oneof(
  fc.integer({ min: 1, max: 1_000_000 }),
  fc.string({ minLength: 1, maxLength: 12 }).map((s) => `s-${s}`),
);

export interface LineContext {
  cwd: string;
  /** Session ids the fuzz may name: a session of its own, then random ones. */
  sessionIds: readonly string[];
}

export function fuzzLine(context: LineContext): fc.Arbitrary<FuzzLine> {
  const sessionId = fc.oneof(fc.constantFrom(...context.sessionIds), fc.uuid(), fc.string());
  const json =
    (kind: string) =>
    (value: unknown): FuzzLine => ({ bytes: toLine(value), kind });

  const mutatedRequest = fc
    .record({
      method: fc.constantFrom(...METHODS),
      id,
      sessionId,
      path: fc.array(fc.nat(), { maxLength: 4 }),
      value: wrongValue,
      mutate: fc.boolean(),
    })
    .map(({ method, id, sessionId, path, value, mutate }) => {
      const params = validParams(method, context.cwd, sessionId);
      if (mutate) setAt(params, path, value);
      return json(`request ${method}${mutate ? " (mutated)" : ""}`)({ jsonrpc: "2.0", id, method, params });
    });
  const wrongEnvelope = fc
    .record({
      method: fc.oneof(fc.constantFrom(...METHODS), fc.string()),
      id,
      field: fc.constantFrom("jsonrpc", "id", "method", "params"),
      value: wrongValue,
    })
    .map(({ method, id, field, value }) => {
      const frame: { [key: string]: Json } = { jsonrpc: "2.0", id, method, params: {} };
      frame[field] = value;
      return json(`envelope ${field}`)(frame);
    });
  const unknownMethod = fc
    .record({ id, method: fc.string({ maxLength: 40 }) })
    .map(({ id, method }) => json("unknown method")({ jsonrpc: "2.0", id, method: `zz/${method}`, params: {} }));
  const strayResponse = fc
    .record({ id, result: wrongValue, error: fc.boolean() })
    .map(({ id, result, error }) =>
      json("stray response")(
        error ? { jsonrpc: "2.0", id, error: { code: -1, message: "x" } } : { jsonrpc: "2.0", id, result },
      ),
    );
  const notificationWithId = fc
    .record({ id, sessionId })
    .map(({ id, sessionId }) =>
      json("cancel with id")({ jsonrpc: "2.0", id, method: "session/cancel", params: { sessionId } }),
    );
  const promptUnknown = fc.record({ id, sessionId: fc.uuid(), text: fc.string() }).map(({ id, sessionId, text }) =>
    json("prompt unknown session")({
      jsonrpc: "2.0",
      id,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text }] },
    }),
  );
  const notification = fc
    .record({ method: fc.constantFrom(...METHODS), sessionId })
    .map(({ method, sessionId }) => json("notification")({ jsonrpc: "2.0", method, params: { sessionId } }));
  const garbage = fc.oneof(
    fc
      .uint8Array({ maxLength: 200 })
      .map((bytes) => ({ bytes: Buffer.from(bytes.filter((b) => b !== 0x0a)), kind: "random bytes" })),
    fc.string().map((text) => ({ bytes: Buffer.from(text.replaceAll("\n", " ")), kind: "random text" })),
    fc
      .constantFrom("{", "[", '{"jsonrpc":"2.0","id":1', "]", "\u0000", "{}{}", "1 2")
      .map((text) => ({ bytes: Buffer.from(text), kind: "broken JSON" })),
  );
  const invalidUtf8 = fc
    .record({
      id,
      bad: fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf]),
    })
    .map(({ id, bad }) => {
      const [head, tail] = JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "session/prompt",
        params: { sessionId: "X", prompt: [{ type: "text", text: "@" }] },
      }).split("@") as [string, string];
      return { bytes: Buffer.concat([Buffer.from(head), Buffer.from(bad), Buffer.from(tail)]), kind: "invalid UTF-8" };
    });
  const hugeLine = fc
    .record({ id, size: fc.integer({ min: 1, max: 10 }), json: fc.boolean() })
    .map(({ id, size, json: whole }) => {
      const filler = "x".repeat(size * 1024 * 1024);
      const text = whole
        ? JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "session/prompt",
            params: { sessionId: "X", prompt: [{ type: "text", text: filler }] },
          })
        : `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"${filler}`;
      return { bytes: Buffer.from(text), kind: `${size} MB line` };
    });

  return fc.oneof(
    { arbitrary: mutatedRequest, weight: 8 },
    { arbitrary: wrongEnvelope, weight: 3 },
    { arbitrary: unknownMethod, weight: 1 },
    { arbitrary: strayResponse, weight: 2 },
    { arbitrary: notificationWithId, weight: 1 },
    { arbitrary: promptUnknown, weight: 1 },
    { arbitrary: notification, weight: 1 },
    { arbitrary: garbage, weight: 2 },
    { arbitrary: invalidUtf8, weight: 1 },
    { arbitrary: hugeLine, weight: 1 },
  );
}

/**
 * What the host owes for a line: the id of a request (answered exactly once), or nothing. Decoded as the host
 * decodes it (invalid UTF-8 becomes U+FFFD), so a line that is a request to the host is one here too.
 */
export function requestId(bytes: Buffer): string | number | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const frame = value as Record<string, unknown>;
  if (frame.jsonrpc !== "2.0" || typeof frame.method !== "string") return undefined;
  return typeof frame.id === "string" || typeof frame.id === "number" ? frame.id : undefined;
}
