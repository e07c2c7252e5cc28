// Every line the host writes to stderr is one JSON object with each key once: log shippers reject duplicate keys.
import { describe, expect, it } from "vitest";
import { startHost, tempDir } from "../support/host.js";
import { bash, script } from "../support/tools.js";

/** The top-level keys of a JSON object's text, in order, duplicates kept (JSON.parse would keep only the last). */
function topLevelKeys(json: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === "\\" ? 2 : 1;
      if (
        depth === 1 &&
        json
          .slice(end + 1)
          .trimStart()
          .startsWith(":")
      )
        keys.push(JSON.parse(json.slice(i, end + 1)) as string);
      i = end;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
  }
  return keys;
}

describe("log lines", () => {
  it("carry every key once, the host's and the spawner's alike", async () => {
    const host = await startHost(["--default-mode", "auto"]);
    const { sessionId } = await host.client.newSession(tempDir());
    await host.client.prompt(sessionId, script(bash("echo hi"), { say: "done" }));
    await host.client.prompt(sessionId, "hello");
    expect(await host.dispose()).toBe(0);
    const lines = host.stderr().split("\n").filter(Boolean);
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      const keys = topLevelKeys(line);
      expect(new Set(keys).size, line).toBe(keys.length);
    }
    expect(lines.find((line) => line.includes("spawner ready"))).toMatch(/"spawnerPid":\d+/);
  });

  it("keep to --log-level in every process of the host, the spawner's too", async () => {
    const host = await startHost(["--default-mode", "auto", "--log-level", "warn"]);
    const { sessionId } = await host.client.newSession(tempDir());
    // A command, so the spawner has run one and logs its ending at exit.
    await host.client.prompt(sessionId, script(bash("echo hi"), { say: "done" }));
    expect(await host.dispose()).toBe(0);
    const below = host
      .stderr()
      .split("\n")
      .filter(Boolean)
      .filter((line) => (JSON.parse(line) as { level: number }).level < 40);
    expect(below).toEqual([]);
  });
});
