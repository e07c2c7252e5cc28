// A worker that answers the main thread with what the port's contract does not allow: the prompt fails with -32603
// (the host's fault, never the client's -32602) naming the session, the worker is replaced, and the session and
// the host go on.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { MALFORMED_OPEN_CWD } from "../support/rogue-worker.js";
import { waitFor } from "../support/tools.js";

const ROGUE = fileURLToPath(new URL("../../dist/test/support/rogue-worker.js", import.meta.url));

describe("a worker that breaks the port's contract", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost(["--allow-fault-injection", "--worker-entry", ROGUE, "--warm-workers", "0"]);
  });
  afterAll(async () => {
    await host?.dispose();
  });

  it("a malformed reply to open fails the prompt with -32603 naming the session", async () => {
    const { sessionId } = await host.client.newSession(tempDir(`${MALFORMED_OPEN_CWD}-`));
    await expect(host.client.prompt(sessionId, "hello")).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("malformed reply to open"),
      data: { reason: "WORKER_FAILED", sessionId },
    });
    await waitFor("the log line", () => /"sessionId":"[^"]+".*malformed reply to open/.test(host.stderr()));
  });

  it("a malformed event fails its turn with -32603; the next prompt runs in a fresh worker", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    expect((await host.client.prompt(sessionId, "first")).text).toBe("rogue says: first");
    await expect(host.client.prompt(sessionId, "malformed event")).rejects.toMatchObject({
      code: -32603,
      data: { reason: "WORKER_FAILED", sessionId },
    });
    await waitFor("the log line", () => /"threadId":\d+.*malformed event: worker replaced/.test(host.stderr()));
    expect((await host.client.prompt(sessionId, "again")).text).toBe("rogue says: again");
  });

  it("needs --allow-fault-injection", async () => {
    const { execFile } = await import("node:child_process");
    const cli = fileURLToPath(new URL("../../dist/src/cli.js", import.meta.url));
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(process.execPath, [cli, "--worker-entry", ROGUE], (error, _stdout, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stderr }),
      ),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--allow-fault-injection");
  });
});
