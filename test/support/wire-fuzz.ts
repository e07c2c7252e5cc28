// The wire fuzz: batches of hostile lines on a real host's stdin, each batch followed by a prompt to a session the
// fuzz never names. Properties: the host stays up, every request with an id is answered exactly once, stdout
// carries only JSON-RPC frames, and the unrelated session keeps answering. Deterministic given the seed; a failure
// names the seed and the exact lines of the batch.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { fuzzLine, requestId, type FuzzLine } from "./wire-lines.js";
import { idKey, startWireHost, type Frame, type WireHost } from "./wire-host.js";

export interface WireFuzzOptions {
  seed: number;
  runs: number;
  maxLinesPerRun?: number;
  /** Bound on waiting for an answer (not a speed test: a hung host fails here instead of hanging the suite). */
  answerTimeoutMs?: number;
}

export interface WireFuzzReport {
  seed: number;
  runs: number;
  lines: number;
  requests: number;
  bytes: number;
  probeLatencyMs: { median: number; max: number };
}

export class WireFuzzFailure extends Error {}

/** A line as a reproducer shows it: text when it is short UTF-8, else its size and first bytes. */
export function showLine(line: FuzzLine): string {
  const text = line.bytes.toString("utf8");
  if (line.bytes.length <= 400 && Buffer.from(text).equals(line.bytes)) return `${line.kind}: ${text}`;
  return `${line.kind}: ${line.bytes.length} bytes, base64 head ${line.bytes.subarray(0, 120).toString("base64")}`;
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new WireFuzzFailure(`no answer within ${ms} ms: ${what}`)), ms)),
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function request(host: WireHost, id: string, method: string, params: unknown, timeoutMs: number): Promise<Frame> {
  await host.write(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method, params })));
  return within(host.response(id), timeoutMs, `${method} ${id}`);
}

export async function runWireFuzz(options: WireFuzzOptions): Promise<WireFuzzReport> {
  const { seed, runs, maxLinesPerRun = 5, answerTimeoutMs = 60_000 } = options;
  const dir = mkdtempSync(join(tmpdir(), "ash-fuzz-"));
  const host = await startWireHost(["--state-dir", join(dir, "state"), "--warm-workers", "1", "--log-level", "warn"]);
  const owed = new Map<string, number>();
  const latencies: number[] = [];
  let lines = 0;
  let requests = 0;
  let bytes = 0;
  let probes = 0;
  let failed = false;
  const check = (condition: boolean, message: string): void => {
    if (!condition) throw new WireFuzzFailure(message);
  };
  try {
    check(
      (await request(host, "setup-init", "initialize", { protocolVersion: 1 }, answerTimeoutMs)).result !== undefined,
      "initialize failed",
    );
    const newSession = async (name: string) => {
      const reply = await request(host, name, "session/new", { cwd: dir, mcpServers: [] }, answerTimeoutMs);
      const sessionId = (reply.result as { sessionId?: unknown } | undefined)?.sessionId;
      check(typeof sessionId === "string", `session/new failed: ${JSON.stringify(reply)}`);
      return sessionId as string;
    };
    const unrelated = await newSession("setup-unrelated");
    const own = await newSession("setup-own");

    const probe = async (): Promise<void> => {
      const n = ++probes;
      const started = performance.now();
      const reply = await request(
        host,
        `probe-${n}`,
        "session/prompt",
        { sessionId: unrelated, prompt: [{ type: "text", text: `probe ${n}` }] },
        answerTimeoutMs,
      );
      latencies.push(performance.now() - started);
      check(
        (reply.result as { stopReason?: unknown } | undefined)?.stopReason === "end_turn",
        `the unrelated session stopped answering: ${JSON.stringify(reply)}`,
      );
      const said = host.updates.some((u) => JSON.stringify(u).includes(`"You said: probe ${n}"`));
      check(said, `the unrelated session's answer to probe ${n} never came`);
    };

    const property = fc.asyncProperty(
      fc.array(fuzzLine({ cwd: dir, sessionIds: [own] }), { minLength: 1, maxLength: maxLinesPerRun }),
      async (batch) => {
        try {
          for (const line of batch) {
            const id = requestId(line.bytes);
            if (id !== undefined) {
              owed.set(idKey(id), (owed.get(idKey(id)) ?? 0) + 1);
              requests++;
            }
            lines++;
            bytes += line.bytes.length;
            await host.write(line.bytes);
          }
          await probe();
          check(
            host.child.exitCode === null && host.child.signalCode === null,
            `the host exited (${host.child.exitCode ?? host.child.signalCode})`,
          );
          check(host.invalid.length === 0, `stdout carried a line that is not JSON-RPC: ${host.invalid[0]}`);
          for (const [key, count] of owed)
            check(
              host.answered(key) <= count,
              `request ${key} was answered ${host.answered(key)} times (sent ${count})`,
            );
        } catch (error) {
          const tail = host.stderr().split("\n").slice(-5).join("\n");
          throw new WireFuzzFailure(
            `${(error as Error).message}\nbatch:\n${batch.map(showLine).join("\n")}\nhost stderr tail:\n${tail}`,
          );
        }
      },
    );
    const outcome = await fc.check(property, { seed, numRuns: runs, endOnFailure: true });
    if (outcome.failed) {
      throw new WireFuzzFailure(
        `wire fuzz failed (reproduce: npm run fuzz -- --seed ${seed} --runs ${runs}) at run ${outcome.numRuns}:\n${String((outcome.errorInstance as Error | undefined)?.message ?? outcome.errorInstance)}`,
      );
    }
    // Every request is answered once in the end (some, such as session/new, answer after later lines).
    await within(
      (async () => {
        while ([...owed].some(([key, count]) => host.answered(key) < count))
          await new Promise((resolve) => setTimeout(resolve, 50));
      })(),
      answerTimeoutMs,
      `the last owed answers (seed ${seed})`,
    );
    await probe();
    for (const [key, count] of owed)
      check(
        host.answered(key) === count,
        `request ${key} was answered ${host.answered(key)} times, sent ${count} (seed ${seed})`,
      );
    check(host.invalid.length === 0, `stdout carried a line that is not JSON-RPC: ${host.invalid[0]} (seed ${seed})`);
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      seed,
      runs,
      lines,
      requests,
      bytes,
      probeLatencyMs: { median: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted.at(-1) ?? 0 },
    };
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    const code = await host.close();
    rmSync(dir, { recursive: true, force: true });
    // A failure already on its way is the one to report.
    if (!failed && code !== 0 && code !== null)
      throw new WireFuzzFailure(`the host exited with ${code} at the end (seed ${seed})`);
  }
}
