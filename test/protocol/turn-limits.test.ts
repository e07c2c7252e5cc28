// Per-turn limits, enforced by the host on every session: a turn that runs past --turn-timeout-ms is cancelled (the
// log says why) and the session takes the next prompt; a turn past --max-turn-tool-calls ends max_turn_requests
// with the calls beyond the limit not run. A turn cancelled before its worker has it is still in the log.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { logEntries, transcript } from "../support/durable.js";
import { startHost, tempDir } from "../support/host.js";
import { bash, script, waitFor } from "../support/tools.js";

describe("turn limits", () => {
  it("--turn-timeout-ms cancels a turn that runs too long and records why", async () => {
    const state = tempDir("ash-state-");
    const host = await startHost(["--state-dir", state, "--turn-timeout-ms", "400"]);
    try {
      const { sessionId } = await host.client.newSession(tempDir());
      // Whether the timeout comes while the worker starts (a loaded machine) or while the turn runs, the turn is in
      // the log with why it ended.
      const result = await host.client.prompt(sessionId, script({ sleep_ms: 60_000 }, { say: "never" }));
      expect(result.stopReason).toBe("cancelled");
      expect(result.text).toBe("");
      expect((await host.client.prompt(sessionId, "next")).text).toBe("You said: next");
      const ends = logEntries(state, sessionId).filter((entry) => entry.type === "turn_end");
      expect(ends).toHaveLength(2);
      expect(ends[0]).toMatchObject({
        stopReason: "cancelled",
        error: expect.stringContaining("--turn-timeout-ms 400"),
      });
      expect(ends[1]).toMatchObject({ stopReason: "end_turn" });
      expect(ends[1]).not.toHaveProperty("error");
      expect(host.stderr()).toContain("turn ran past --turn-timeout-ms");
    } finally {
      await host.dispose();
    }
  });

  it("a prompt cancelled while its worker waits to start is in the log like any other cancelled turn", async () => {
    const state = tempDir("ash-state-");
    // One worker at a time: the second session's prompt waits for the first session's worker to be done.
    const host = await startHost(["--state-dir", state, "--max-live-workers", "1", "--warm-workers", "0"]);
    try {
      const rowOf = async (id: string) => (await host.client.status()).sessionRows.find((row) => row.sessionId === id);
      const cwd = tempDir();
      const first = await host.client.newSession(cwd);
      const holding = host.client.prompt(first.sessionId, script({ sleep_ms: 60_000 }, { say: "never" }));
      await waitFor("the first session's worker to run its turn", async () => {
        const row = await rowOf(first.sessionId);
        return row?.state === "busy" && row.threadId !== null;
      });
      const second = await host.client.newSession(cwd);
      const held = host.client.prompt(second.sessionId, "held back");
      await waitFor("the second prompt in flight without a worker", async () => {
        const row = await rowOf(second.sessionId);
        return row?.state === "busy" && row.threadId === null;
      });
      await host.client.cancel(second.sessionId);
      await host.client.cancel(first.sessionId);
      expect((await holding).stopReason).toBe("cancelled");
      expect((await held).stopReason).toBe("cancelled");

      const entries = logEntries(state, second.sessionId);
      expect(entries.filter((entry) => entry.type === "user_message")).toEqual([
        expect.objectContaining({ text: "held back" }),
      ]);
      expect(entries.filter((entry) => entry.type === "turn_end")).toEqual([
        expect.objectContaining({ stopReason: "cancelled" }),
      ]);
      // session/load replays it as it replays any turn.
      const replay = await host.client.load(second.sessionId, cwd);
      expect(transcript(replay)).toContain("user: held back");
      expect((await host.client.prompt(second.sessionId, "next")).text).toBe("You said: next");
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
