// `_host/status`: the host's figures and a paged row per session (state, worker thread, its busy time and heap,
// turns, idle time, token sums); `acp-session-host status --connect URL` prints it from a listening host.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { startHost, tempDir } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";
import { waitFor } from "../support/tools.js";
import { startRemoteHost } from "../support/remote-host.js";
import { connectHost } from "../support/checked-host.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli.js", import.meta.url));

describe("_host/status", () => {
  it("pages a row per session with its worker's figures and its token sums", async () => {
    const server = await OpenAiTestServer.start();
    const host = await startHost([...server.hostArgs(), "--hibernate-after-ms", "0"]);
    try {
      const a = (await host.client.newSession(tempDir())).sessionId;
      const b = (await host.client.newSession(tempDir())).sessionId;
      await host.client.prompt(a, "one");
      await host.client.prompt(a, "two");
      await host.client.prompt(b, "three");
      // A worker slower than the status's short wait is left out of that reading (its figures null): read again.
      const { first, second } = await waitFor("both workers' figures", async () => {
        const first = await host.client.status({ pageSize: 1 });
        const second = first.nextCursor ? await host.client.status({ pageSize: 1, cursor: first.nextCursor }) : null;
        const answered =
          second && [...first.sessionRows, ...second.sessionRows].every((row) => row.heapUsedMiB !== null);
        return answered ? { first, second } : null;
      });
      expect(first.sessionRows).toHaveLength(1);
      expect(first.nextCursor).toBeDefined();
      expect(second.nextCursor).toBeUndefined();
      const rows = [...first.sessionRows, ...second.sessionRows];
      expect(rows.map((row) => row.sessionId).sort()).toEqual([a, b].sort());
      const rowA = rows.find((row) => row.sessionId === a)!;
      expect(rowA).toMatchObject({ state: "live", turns: 2 });
      expect(rowA.threadId).toBeGreaterThan(0);
      expect(rowA.heapUsedMiB).toBeGreaterThan(0);
      expect(rowA.workerActiveMs).toBeGreaterThan(0);
      expect(rowA.tokens!.prompt).toBeGreaterThan(0);
      expect(rowA.tokens!.completion).toBeGreaterThan(0);
      expect(rows.find((row) => row.sessionId === b)).toMatchObject({ turns: 1 });
      expect(first.pid).toBe(host.pid);
      // Without the workers' own figures: the same rows, nothing asked of a worker.
      const light = await host.client.status({ workerFigures: false });
      expect(light.sessionRows.find((row) => row.sessionId === a)).toMatchObject({
        state: "live",
        turns: 2,
        threadId: rowA.threadId,
        heapUsedMiB: null,
        workerActiveMs: null,
      });
    } finally {
      await host.dispose();
      await server.close();
    }
  });

  it("acp-session-host status --connect prints it from a listening host", async () => {
    const host = await startRemoteHost();
    try {
      const client = await connectHost(host.wsUrl);
      const { sessionId } = await client.newSession(tempDir());
      await client.prompt(sessionId, "hello");
      const { stdout } = await promisify(execFile)(process.execPath, [CLI, "status", "--connect", host.httpUrl]);
      expect(stdout).toMatch(/^pid \d+ · up \d+ s · sessions 1 \(0 busy\)/);
      expect(stdout).toContain(sessionId);
      const json = JSON.parse(
        (await promisify(execFile)(process.execPath, [CLI, "status", "--connect", host.httpUrl, "--json"])).stdout,
      ) as { sessionRows: Array<{ sessionId: string; turns: number }> };
      expect(json.sessionRows).toEqual([expect.objectContaining({ sessionId, turns: 1 })]);
      await client.dispose();
    } finally {
      await host.stop();
    }
  });
});
