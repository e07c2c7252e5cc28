// Per-turn limits, enforced by the host on every session: a turn that runs past --turn-timeout-ms is cancelled (the
// log says why) and the session takes the next prompt; a turn past --max-turn-tool-calls ends max_turn_requests
// with the calls beyond the limit not run.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { logEntries } from "../support/durable.js";
import { startHost, tempDir } from "../support/host.js";
import { bash, script } from "../support/tools.js";

describe("turn limits", () => {
  it("--turn-timeout-ms cancels a turn that runs too long and records why", async () => {
    const state = tempDir("ash-state-");
    const host = await startHost(["--state-dir", state, "--turn-timeout-ms", "400"]);
    try {
      const { sessionId } = await host.client.newSession(tempDir());
      // The worker open first: a start slower than the timeout (a loaded machine) cancels the turn before the worker
      // has it, and the log has no turn to say why. The worker goes on opening: a later prompt finds it.
      for (let tries = 0; (await host.client.prompt(sessionId, "warm up")).stopReason !== "end_turn"; tries++)
        expect(tries).toBeLessThan(5);
      const result = await host.client.prompt(sessionId, script({ sleep_ms: 60_000 }, { say: "never" }));
      expect(result.stopReason).toBe("cancelled");
      expect(result.text).toBe("");
      expect((await host.client.prompt(sessionId, "next")).text).toBe("You said: next");
      const ends = logEntries(state, sessionId).filter((entry) => entry.type === "turn_end");
      expect(ends).toContainEqual(
        expect.objectContaining({ stopReason: "cancelled", error: expect.stringContaining("--turn-timeout-ms 400") }),
      );
      expect(ends.at(-1)).toMatchObject({ stopReason: "end_turn" });
      expect(ends.at(-1)).not.toHaveProperty("error");
      expect(host.stderr()).toContain("turn ran past --turn-timeout-ms");
    } finally {
      await host.dispose();
    }
  });

  it("--max-turn-tool-calls ends the turn max_turn_requests; the calls past it do not run", async () => {
    const host = await startHost(["--max-turn-tool-calls", "2", "--default-mode", "auto"]);
    try {
      const ws = tempDir();
      const { sessionId } = await host.client.newSession(ws);
      const result = await host.client.prompt(
        sessionId,
        script(bash("touch one"), bash("touch two"), bash("touch three"), { say: "never" }),
      );
      expect(result.stopReason).toBe("max_turn_requests");
      expect(result.toolCalls).toHaveLength(2);
      expect(["one", "two", "three"].map((name) => existsSync(join(ws, name)))).toEqual([true, true, false]);
      expect((await host.client.prompt(sessionId, "next")).text).toBe("You said: next");
    } finally {
      await host.dispose();
    }
  });
});
