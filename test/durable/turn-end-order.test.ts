// A turn's end is durable before it is answered: the worker appends the turn_end to the session's log, fdatasyncs the
// log, and only then does the host write the answer to stdout. A kill shows only that the write happened (the page
// cache outlives a process); the order is seen here, in the host's system calls under strace, and a sync that fails
// (injected by strace) leaves the turn unanswered as ended.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/index.js";
import { tempDir } from "../support/host.js";
import { postgresPerFile } from "../support/postgres.js";

const CLI = new URL("../../dist/src/cli.js", import.meta.url).pathname;
const STRACE = "/usr/bin/strace";

// A cluster that syncs its commits: a commit answered is on disk.
const cluster = postgresPerFile({ durable: true });

interface Call {
  index: number;
  tid: string;
  line: string;
}

/** strace -f lines, with each call split by another thread's (`<unfinished ...>` / `<... resumed>`) joined back. */
function calls(trace: string): Call[] {
  const out: Call[] = [];
  const open = new Map<string, Call>();
  trace.split("\n").forEach((raw, index) => {
    const match = /^(\d+)\s+(.*)$/.exec(raw);
    if (!match) return;
    const [, tid, line] = match as unknown as [string, string, string];
    if (line.endsWith("<unfinished ...>")) {
      // Placed where it began: what it writes is seen from then.
      const call = { index, tid, line: line.slice(0, -"<unfinished ...>".length) };
      open.set(tid, call);
      out.push(call);
      return;
    }
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(line);
    if (resumed) {
      const call = open.get(tid);
      open.delete(tid);
      // A call that returns is done only here: its end is this line.
      if (call) out.push({ index, tid, line: `${call.line}${resumed[1]!} [returned]` });
      return;
    }
    out.push({ index, tid, line: `${line} [returned]` });
  });
  return out;
}

describe("the order of a turn's end", () => {
  it("turn_end appended, the log fdatasynced, then the answer written to stdout", { timeout: 60_000 }, async () => {
    const state = tempDir("ash-state-");
    const trace = join(tempDir(), "strace.txt");
    const client = await HostClient.spawn({
      command: STRACE,
      // -y names each descriptor's file: the session's log by its path, stdout as a pipe.
      args: [
        ...["-f", "-qq", "-y", "-s", "4096", "-o", trace],
        ...["-e", "trace=write,writev,pwrite64,fdatasync,fsync", "-e", "signal=none"],
        ...[process.execPath, CLI, "serve", "--state-dir", state, "--log-level", "warn"],
      ],
    });
    let sessionId: string;
    try {
      sessionId = (await client.newSession(tempDir())).sessionId;
      expect((await client.prompt(sessionId, "in order")).stopReason).toBe("end_turn");
    } finally {
      await client.dispose();
    }
    const seen = calls(readFileSync(trace, "utf8"));
    const onLog = (call: Call) => call.line.includes(sessionId) && call.line.includes(".jsonl>");
    const appended = seen.find(
      (call) => /^(write|writev|pwrite64)\(/.test(call.line) && onLog(call) && call.line.includes("turn_end"),
    );
    expect(appended, "the turn_end written to the session's log").toBeDefined();
    const synced = seen.find(
      (call) =>
        call.index > appended!.index &&
        /^(fdatasync|fsync)\(/.test(call.line) &&
        onLog(call) &&
        call.line.endsWith("= 0 [returned]"),
    );
    expect(synced, "the log fdatasynced after the turn_end").toBeDefined();
    const answered = seen.find(
      (call) => /^(write|writev)\(1</.test(call.line) && /stopReason\\?":\\?"end_turn/.test(call.line),
    );
    expect(answered, "the answer written to stdout").toBeDefined();
    expect(appended!.index).toBeLessThan(synced!.index);
    expect(synced!.index).toBeLessThan(answered!.index);
  });

  it("a turn whose log cannot be synced is not answered end_turn", { timeout: 60_000 }, async () => {
    // Every fdatasync of the host fails (strace injects EIO): the turn's end is written but never made durable.
    const client = await HostClient.spawn({
      command: STRACE,
      args: [
        ...["-f", "-qq", "-o", "/dev/null", "-e", "trace=fdatasync", "-e", "inject=fdatasync:error=EIO"],
        ...[process.execPath, CLI, "serve", "--state-dir", tempDir("ash-state-"), "--log-level", "warn"],
      ],
    });
    try {
      const { sessionId } = await client.newSession(tempDir());
      const answer = await client.prompt(sessionId, "not durable").then(
        (result) => ({ stopReason: result.stopReason }),
        (error: { code?: number; data?: { reason?: string } }) => ({ code: error.code, reason: error.data?.reason }),
      );
      expect(answer).toEqual({ code: -32603, reason: "LOG_WRITE_FAILED" });
    } finally {
      await client.dispose();
    }
  });

  it(
    "on PostgreSQL: the statement holding turn_end committed, then the answer written",
    { timeout: 60_000 },
    async () => {
      const url = await cluster.database();
      const trace = join(tempDir(), "strace.txt");
      const client = await HostClient.spawn({
        command: STRACE,
        args: [
          ...["-f", "-qq", "-y", "-s", "4096", "-o", trace],
          ...["-e", "trace=write,writev,read,sendto,recvfrom", "-e", "signal=none"],
          ...[process.execPath, CLI, "serve", "--store", url, "--log-level", "warn"],
        ],
      });
      try {
        const { sessionId } = await client.newSession(tempDir());
        expect((await client.prompt(sessionId, "in order")).stopReason).toBe("end_turn");
      } finally {
        await client.dispose();
      }
      const seen = calls(readFileSync(trace, "utf8"));
      const fdOf = (call: Call) => /^\w+\((\d+)</.exec(call.line)?.[1];
      // The statement that appends the turn's end (its records are the statement's parameters).
      const sent = seen.find(
        (call) => /^(write|writev|sendto)\(\d+<socket/.test(call.line) && call.line.includes("turn_end"),
      );
      expect(sent, "the turn_end sent to PostgreSQL").toBeDefined();
      // Its answer read on that connection: ReadyForQuery, idle (Z, length 5, I): the statement has committed.
      const committed = seen.find(
        (call) =>
          call.index > sent!.index &&
          fdOf(call) === fdOf(sent!) &&
          /^(read|recvfrom)\(/.test(call.line) &&
          call.line.includes(String.raw`Z\0\0\0\5I`),
      );
      expect(committed, "the server's answer to that statement").toBeDefined();
      const answered = seen.find(
        (call) => /^(write|writev)\(1</.test(call.line) && /stopReason\\?":\\?"end_turn/.test(call.line),
      );
      expect(answered, "the answer written to stdout").toBeDefined();
      expect(sent!.index).toBeLessThan(committed!.index);
      expect(committed!.index).toBeLessThan(answered!.index);
    },
  );
});
