// A host driven by raw lines on stdin, for input no well-behaved client would send.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../../dist/src/cli.js", import.meta.url));

export interface RawHost {
  child: ChildProcessWithoutNullStreams;
  send(line: string): void;
  /** Waits for the next stdout line that parses as JSON and matches the predicate. */
  next(predicate?: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Every stdout line so far, raw. */
  lines: string[];
  /** Everything the host wrote to stderr so far. */
  stderr(): string;
  /** Stops reading the host's stdout (its pipe fills), until resumeOutput. */
  pauseOutput(): void;
  resumeOutput(): void;
  close(): Promise<number | null>;
}

export async function startRawHost(args: string[] = []): Promise<RawHost> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let log = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (log += chunk));
  const lines: string[] = [];
  const waiters: Array<{
    predicate: (m: Record<string, unknown>) => boolean;
    resolve: (m: Record<string, unknown>) => void;
  }> = [];
  const seen: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    const message = JSON.parse(line) as Record<string, unknown>;
    const index = waiters.findIndex((w) => w.predicate(message));
    if (index >= 0) waiters.splice(index, 1)[0]!.resolve(message);
    else seen.push(message);
  });
  await once(child, "spawn");
  return {
    child,
    lines,
    send: (line) => child.stdin.write(`${line}\n`),
    stderr: () => log,
    pauseOutput: () => void child.stdout.pause(),
    resumeOutput: () => void child.stdout.resume(),
    next: (predicate = () => true) => {
      const index = seen.findIndex(predicate);
      if (index >= 0) return Promise.resolve(seen.splice(index, 1)[0]!);
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
    close: async () => {
      const exited = once(child, "exit");
      child.stdin.end();
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
