// A worker whose start throws answers the prompt that waited for it with -32603 naming the session, and only that
// prompt: the host's other sessions go on, and the session's next prompt starts a fresh worker. The start really
// fails, for a while the test ends: the host runs a copy of the real worker bundle (--worker-entry), whose
// session-entry.js is moved away for one start; or the session's sidecar, which a worker rewrites as it restores the
// log, is a directory for one start.
import { cpSync, mkdirSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";

const BUNDLE = fileURLToPath(new URL("../../dist/workers/bundle/", import.meta.url));

describe("a worker whose start throws", () => {
  let host: TestHost;
  let entry: string;
  const stateDir = tempDir("ash-state-");
  beforeAll(async () => {
    const bundle = tempDir("ash-bundle-");
    cpSync(BUNDLE, bundle, { recursive: true });
    entry = join(bundle, "session-entry.js");
    host = await startHost([
      "--allow-fault-injection",
      "--worker-entry",
      join(bundle, "session-loader.js"),
      "--warm-workers",
      "0",
      "--state-dir",
      stateDir,
    ]);
  });
  afterAll(async () => {
    await host?.dispose();
  });

  it("fails its prompt with -32603 naming the session; other sessions go on, and the next prompt starts afresh", async () => {
    const other = (await host.client.newSession(tempDir())).sessionId;
    const failing = (await host.client.newSession(tempDir())).sessionId;
    expect((await host.client.prompt(other, "before")).text).toBe("You said: before");
    expect((await host.client.prompt(failing, "before")).text).toBe("You said: before");
    // Its worker gone, the session's next prompt restores it from its log in a fresh worker: the start that fails.
    await expect(host.client.prompt(failing, `/script [{"crash":"gone"}]`)).rejects.toMatchObject({
      code: -32603,
      data: expect.objectContaining({ reason: "WORKER_FAILED" }),
    });

    renameSync(entry, `${entry}.away`);
    try {
      await expect(host.client.prompt(failing, "while broken")).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(new RegExp(`${failing}.*ENOENT.*session-entry\\.js`)),
        data: { reason: "WORKER_FAILED", sessionId: failing },
      });
      expect((await host.client.prompt(other, "meanwhile")).text).toBe("You said: meanwhile");
    } finally {
      renameSync(`${entry}.away`, entry);
    }

    expect((await host.client.prompt(failing, "after")).text).toBe("You said: after");
    expect((await host.client.prompt(other, "after")).text).toBe("You said: after");
  });

  it("a restore that throws in the worker fails its prompt the same way", async () => {
    const other = (await host.client.newSession(tempDir())).sessionId;
    const failing = (await host.client.newSession(tempDir())).sessionId;
    expect((await host.client.prompt(failing, "before")).text).toBe("You said: before");
    await expect(host.client.prompt(failing, `/script [{"crash":"gone"}]`)).rejects.toMatchObject({
      code: -32603,
      data: expect.objectContaining({ reason: "WORKER_FAILED" }),
    });

    const sidecar = join(stateDir, "sessions", `${failing}.meta.json`);
    rmSync(sidecar);
    mkdirSync(sidecar);
    try {
      await expect(host.client.prompt(failing, "while broken")).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(new RegExp(`^session ${failing}: .*EISDIR`)),
        data: { reason: "WORKER_FAILED", sessionId: failing },
      });
      expect((await host.client.prompt(other, "meanwhile")).text).toBe("You said: meanwhile");
    } finally {
      rmdirSync(sidecar);
    }

    expect((await host.client.prompt(failing, "after")).text).toBe("You said: after");
  });
});
