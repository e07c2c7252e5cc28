// A host run with V8 options of its own (`node --max-old-space-size=… cli.js serve`): its session workers start
// without them (a Worker refuses them) and keep the node options they may have, and its sessions answer.
import { describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/index.js";
import { workerExecArgv } from "../../src/pool/worker-exec-argv.js";
import { tempDir } from "../support/host.js";

const CLI = new URL("../../dist/src/cli.js", import.meta.url).pathname;

describe("a host run with V8 options", () => {
  it("keeps the node options a worker takes and drops the V8 ones", () => {
    expect(workerExecArgv(["--max-old-space-size=4096", "--enable-source-maps", "--stack-size=900"])).toEqual([
      "--enable-source-maps",
    ]);
    expect(workerExecArgv([])).toEqual([]);
  });

  it("answers prompts", { timeout: 30_000 }, async () => {
    const client = await HostClient.spawn({
      args: [
        "--max-old-space-size=4096",
        "--stack-size=900",
        CLI,
        "serve",
        "--log-level",
        "warn",
        "--state-dir",
        tempDir("ash-state-"),
      ],
      permission: "allow",
      stderr: "ignore",
    });
    try {
      const { sessionId } = await client.newSession(tempDir("ash-cwd-"));
      expect((await client.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
    } finally {
      expect(await client.dispose()).toBe(0);
    }
  });
});
