// A command whose output the client does not read: the session's worker stops reading it from the spawner, the
// spawner stops reading the command's pipe, and the command waits on its writes (nothing piles up in the host);
// once the client reads, the command runs to its end and its streamed output arrives whole. Over stdio, whose pipe
// buffer is a fixed 64 KiB, so what the host holds is all that can be ahead of the client. Full access: its commands
// write to a pipe (a sandboxed command writes to its output file, which then holds what is not read yet).
import { existsSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { tempDir } from "../support/host.js";
import { startRawHost } from "../support/raw-host.js";
import { bash, processesRunning, script, waitFor } from "../support/tools.js";

const byId = (id: number) => (message: Record<string, unknown>) => message.id === id;

it(
  "a command is paused while its client does not read its output, and goes on when it does",
  { timeout: 120_000 },
  async () => {
    const host = await startRawHost([
      "--state-dir",
      tempDir("ash-state-"),
      "--log-level",
      "debug",
      "--allow-full-access",
      "--default-mode",
      "full-access",
      // A 64 KiB output window for the session.
      "--max-buffered-bytes",
      "65536",
      "--max-message-bytes",
      "32768",
    ]);
    try {
      const cwd = tempDir();
      host.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } }));
      await host.next(byId(1));
      host.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd, mcpServers: [] } }));
      const { sessionId } = (await host.next(byId(2))).result as { sessionId: string };

      host.pauseOutput();
      // 3 MB: more than every buffer between the command and the client holds.
      const command = "head -c 3000000 /dev/zero";
      host.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 3,
          method: "session/prompt",
          params: { sessionId, prompt: [{ type: "text", text: script(bash(`${command} | tr '\\0' x; touch done`)) }] },
        }),
      );
      await waitFor(
        "the session's output to wait for its client",
        () => new RegExp(`"sessionId":"${sessionId}".*session output waits`).test(host.stderr()),
        60_000,
      );
      // Not an event to wait for: a command that nothing held back would have written 3 MB long before this.
      await delay(1000);
      expect(processesRunning(host.child.pid!, command)).toHaveLength(1);
      expect(existsSync(join(cwd, "done"))).toBe(false);

      host.resumeOutput();
      expect((await host.next(byId(3))).result).toEqual({ stopReason: "end_turn" });
      expect(existsSync(join(cwd, "done"))).toBe(true);
      // Deltas went out until the next would have passed 1 MiB, then a notice that the rest is in the output file.
      const streamed = host.lines
        .map(
          (line) =>
            JSON.parse(line) as {
              params?: {
                update?: {
                  sessionUpdate?: string;
                  rawOutput?: unknown;
                  content?: Array<{ content?: { text?: string } }>;
                };
              };
            },
        )
        .map((message) => message.params?.update)
        .filter((update) => update?.sessionUpdate === "tool_call_update" && update.rawOutput === undefined)
        .flatMap((update) => update!.content ?? [])
        .map((item) => item.content?.text ?? "")
        .join("");
      const streamedXs = /^x*/.exec(streamed)![0].length;
      expect(streamedXs).toBeLessThanOrEqual(1024 * 1024);
      expect(streamedXs).toBeGreaterThan(1024 * 1024 - 128 * 1024);
      expect(streamed.slice(streamedXs)).toMatch(/^\n\[… output continues; it is no longer streamed for this call/);
    } finally {
      await host.close();
    }
  },
);
