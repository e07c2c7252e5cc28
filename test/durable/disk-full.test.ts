// A session fills the disk its state dir is on (the escape catalogue's last entry). The host runs in a mount
// namespace of its own (unshare) on an 8 MiB tmpfs holding its state dir and two workspaces. While the disk is full,
// another session's prompt gets a clear -32603 that names the log and the cause, the host serves on, no log keeps a
// partial record, and once there is room again the session answers and its log holds every turn that ended.
import { readFileSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/index.js";
import { tempDir } from "../support/host.js";
import { bash, script } from "../support/tools.js";

const CLI = new URL("../../dist/src/cli.js", import.meta.url).pathname;

describe("a full disk", () => {
  it(
    "fails the prompts whose log cannot be written, clearly, and loses no turn that ended",
    { timeout: 60_000 },
    async () => {
      const root = tempDir("ash-disk-");
      const inner = [
        `mount -t tmpfs -o size=8m tmpfs ${root}`,
        `mkdir -p ${root}/state ${root}/filler ${root}/quiet`,
        `exec "$0" ${CLI} serve --log-level warn --state-dir ${root}/state --default-mode auto --hibernate-after-ms 0`,
      ].join(" && ");
      const client = await HostClient.spawn({
        command: "unshare",
        args: ["-Urm", "sh", "-c", inner, process.execPath],
        permission: "allow",
        stderr: "pipe",
      });
      let stderr = "";
      client.child!.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
      // The tmpfs is in the host's mount namespace: reached from here through its /proc root.
      const inHost = (path: string) => `/proc/${client.child!.pid}/root${path}`;
      try {
        const filler = await client.newSession(`${root}/filler`);
        const quiet = await client.newSession(`${root}/quiet`);
        expect((await client.prompt(quiet.sessionId, "before")).stopReason).toBe("end_turn");

        // The filler's own turn may or may not find room for its log's last records: either answer will do.
        await client.prompt(filler.sessionId, script(bash("head -c 20000000 /dev/zero > big"))).catch(() => null);
        const failure = await client.prompt(quiet.sessionId, `during ${"x".repeat(64 * 1024)}`).then(
          () => null,
          (error: { code: number; message: string; data?: unknown }) => error,
        );
        expect(failure).not.toBeNull();
        expect(failure!.code).toBe(-32603);
        expect(failure).toMatchObject({ data: { reason: "LOG_WRITE_FAILED" } });
        expect(failure!.message).toContain("log could not be written");
        expect(failure!.message).toContain("ENOSPC");

        // Sent on the failure's answer: the failed worker was dropped before that answer went out, so a fresh worker
        // restored from the log takes it (a short record still fits), never the dying one.
        expect((await client.prompt(quiet.sessionId, "again")).text).toBe("You said: again");

        rmSync(inHost(`${root}/filler/big`));
        const after = await client.prompt(quiet.sessionId, "after");
        expect(after.text).toBe("You said: after");

        const log = readFileSync(inHost(`${root}/state/sessions/${quiet.sessionId}.jsonl`), "utf8");
        const records = log
          .trimEnd()
          .split("\n")
          .map((line) => JSON.parse(line) as { type?: string; text?: string });
        const said = records.filter((record) => record.type === "user_message").map((record) => record.text);
        expect(said.at(0)).toBe("before");
        expect(said.slice(-2)).toEqual(["again", "after"]);
        expect(records.filter((record) => record.type === "turn_end").length).toBeGreaterThanOrEqual(2);
      } finally {
        await client.dispose();
      }
      expect(stderr).not.toContain('"level":60');
    },
  );
});
