// HostClient's permission policies against a real host: write_file in mode "ask" asks the client before it writes.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";

const write = (path: string, content = "written") =>
  `/script ${JSON.stringify([{ tool: "write_file", input: { path, content } }, { say: "{{result}}" }])}`;

describe("HostClient permission policies", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost(["--default-mode", "ask"]);
  });
  afterAll(async () => {
    await host.dispose();
  });

  it("deny (the default) rejects the call: the tool fails and nothing is written", async () => {
    expect(host.client.permission).toBe("deny");
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    const result = await host.client.prompt(sessionId, write("denied.txt"));
    expect(result.stopReason).toBe("end_turn");
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]!.status).toBe("failed");
    expect(result.text).toContain("refused");
    expect(existsSync(join(cwd, "denied.txt"))).toBe(false);
  });

  it("allow answers allow_once: the file is written, and the next write asks again", async () => {
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    host.client.permission = "allow";
    try {
      const first = await host.client.prompt(sessionId, write("one.txt", "1"));
      expect(first.toolCalls[0]!.status).toBe("completed");
      expect(readFileSync(join(cwd, "one.txt"), "utf8")).toBe("1");
      // allow_once covers one call only: with "deny" now in force the next write is refused.
      host.client.permission = "deny";
      const second = await host.client.prompt(sessionId, write("two.txt", "2"));
      expect(second.toolCalls[0]!.status).toBe("failed");
      expect(existsSync(join(cwd, "two.txt"))).toBe(false);
    } finally {
      host.client.permission = "deny";
    }
  });

  it("a callback sees the request and its answer is applied; allow_always stops further questions", async () => {
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    const seen: RequestPermissionRequest[] = [];
    host.client.permission = (request) => {
      seen.push(request);
      return { outcome: { outcome: "selected", optionId: "allow_always" } };
    };
    try {
      const first = await host.client.prompt(sessionId, write("a.txt", "A"));
      expect(first.toolCalls[0]!.status).toBe("completed");
      expect(seen).toHaveLength(1);
      expect(seen[0]!.sessionId).toBe(sessionId);
      expect(seen[0]!.toolCall.title).toBe("Write a.txt");
      expect(seen[0]!.options.map((option) => option.kind).sort()).toEqual([
        "allow_always",
        "allow_once",
        "reject_once",
      ]);

      const second = await host.client.prompt(sessionId, write("b.txt", "B"));
      expect(second.toolCalls[0]!.status).toBe("completed");
      expect(seen).toHaveLength(1);
      expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("B");
    } finally {
      host.client.permission = "deny";
    }
  });

  it("the allow_always policy picks allow_always; a cancelled answer fails the call", async () => {
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    host.client.permission = "allow_always";
    try {
      expect((await host.client.prompt(sessionId, write("kept.txt"))).toolCalls[0]!.status).toBe("completed");
      let asked = 0;
      host.client.permission = () => {
        asked++;
        return { outcome: { outcome: "cancelled" } };
      };
      // This session no longer asks for write_file …
      expect((await host.client.prompt(sessionId, write("again.txt"))).toolCalls[0]!.status).toBe("completed");
      expect(asked).toBe(0);
      // … a fresh one does, and a cancelled answer fails the call.
      const other = await host.client.newSession(cwd);
      const refused = await host.client.prompt(other.sessionId, write("never.txt"));
      expect(asked).toBe(1);
      expect(refused.toolCalls[0]!.status).toBe("failed");
      expect(refused.text).toContain("cancelled");
      expect(existsSync(join(cwd, "never.txt"))).toBe(false);
    } finally {
      host.client.permission = "deny";
    }
  });
});
