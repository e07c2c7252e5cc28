import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { descendantIdentities, endHost, startHost, tempDir } from "../support/host.js";
import { everythingStdio, marker, PATIENT, serverPids } from "../support/mcp.js";
import { bash, processesRunning, script, waitFor } from "../support/tools.js";

/** A host that throws what nothing catches on SIGUSR2 (test/fixtures/fault-on-signal.mjs). */
const FAULT_ON_SIGNAL = fileURLToPath(new URL("../fixtures/fault-on-signal.mjs", import.meta.url));

describe("teardown leaves nothing running", () => {
  it.each(["SIGTERM", "SIGINT", "stdin closed", "uncaught fault"] as const)(
    "every sandbox and command of busy sessions is gone when the host's exit is seen (%s)",
    { timeout: 60_000 },
    async (ending) => {
      const env = { ...process.env, NODE_OPTIONS: `--import ${FAULT_ON_SIGNAL}` };
      const host = await startHost(
        ["--default-mode", "auto", ...PATIENT],
        "deny",
        ending === "uncaught fault" ? env : undefined,
      );
      // MCP servers run under a bwrap of their own, started by the spawner beside the sessions' sandboxes.
      const marks = [marker(), marker()];
      for (const mark of marks)
        await host.client.newSession(tempDir(), { mcpServers: [everythingStdio("everything", mark)] });
      const sessions = await Promise.all(Array.from({ length: 20 }, () => host.client.newSession(tempDir())));
      const turns = sessions.map(({ sessionId }) => host.client.prompt(sessionId, script(bash("sleep 30"))));
      await waitFor("every command to start", () => processesRunning(host.pid, "sleep 30").length === 20);
      await waitFor("the MCP servers to start", () => marks.every((mark) => serverPids(mark).length > 0), 60_000);
      const before = descendantIdentities(host.pid);
      expect(before.length).toBeGreaterThan(20 * 3);
      const { code, left } = await endHost(host, ending, before);
      expect(left).toEqual([]);
      expect(code).toBe(ending === "uncaught fault" ? 1 : 0);
      if (ending === "uncaught fault") expect(host.stderr()).toMatch(/"injected fault".*"host failed: ending"/s);
      for (const turn of await Promise.all(turns)) expect(turn.stopReason).toBe("cancelled");
    },
  );
});
