// A real host on stdio for the wire fuzz: raw bytes in, every stdout line checked as a JSON-RPC frame, responses
// counted by id, requests from the host refused so that nothing waits on the fuzzer.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { CLI } from "./cli-path.js";

export type Frame = Record<string, unknown>;

export interface WireHost {
  child: ChildProcessWithoutNullStreams;
  write(bytes: Buffer): Promise<void>;
  /** Responses seen so far for an id (keyed by idKey). */
  answered(key: string): number;
  /** The stdout lines that were not valid JSON-RPC frames. */
  invalid: string[];
  /** Waits for the response to `id`. */
  response(id: string | number): Promise<Frame>;
  /** Every session/update notification seen, in order. */
  updates: Frame[];
  stderr(): string;
  close(): Promise<number | null>;
}

export const idKey = (id: unknown): string => `${typeof id}:${String(id)}`;

/** A frame as JSON-RPC 2.0 allows it: a request or notification, or a response with exactly one of result/error. */
export function isJsonRpcFrame(value: unknown): value is Frame {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const frame = value as Frame;
  if (frame.jsonrpc !== "2.0") return false;
  if (typeof frame.method === "string")
    return frame.id === undefined || typeof frame.id === "string" || typeof frame.id === "number";
  const idOk = frame.id === null || typeof frame.id === "string" || typeof frame.id === "number";
  return idOk && "result" in frame !== "error" in frame;
}

export async function startWireHost(args: string[]): Promise<WireHost> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let log = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => (log = (log + chunk).slice(-200_000)));
  const counts = new Map<string, number>();
  const invalid: string[] = [];
  const updates: Frame[] = [];
  const waiters = new Map<string, (frame: Frame) => void>();
  const frames = new Map<string, Frame>();
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      invalid.push(line.slice(0, 500));
      return;
    }
    if (!isJsonRpcFrame(value)) {
      invalid.push(line.slice(0, 500));
      return;
    }
    if (typeof value.method === "string") {
      if (value.method === "session/update") updates.push(value);
      // A request from the host: refused, so no turn waits on the fuzzer.
      else if (value.id !== undefined)
        child.stdin.write(
          `${JSON.stringify({ jsonrpc: "2.0", id: value.id, error: { code: -32601, message: "fuzz client" } })}\n`,
        );
      return;
    }
    const key = idKey(value.id);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    frames.set(key, value);
    const waiter = waiters.get(key);
    if (waiter) {
      waiters.delete(key);
      waiter(value);
    }
  });
  await once(child, "spawn");
  return {
    child,
    invalid,
    updates,
    stderr: () => log,
    answered: (key) => counts.get(key) ?? 0,
    write: (bytes) =>
      new Promise<void>((resolve, reject) => {
        child.stdin.write(Buffer.concat([bytes, Buffer.from("\n")]), (error) => (error ? reject(error) : resolve()));
      }),
    response: (id) => {
      const key = idKey(id);
      const seen = frames.get(key);
      if (seen) return Promise.resolve(seen);
      return new Promise<Frame>((resolve) => waiters.set(key, resolve));
    },
    close: async () => {
      if (child.exitCode !== null) return child.exitCode;
      const exited = once(child, "exit");
      child.stdin.end();
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
