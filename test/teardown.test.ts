import { once } from "node:events";
import { afterAll, describe, expect, it } from "vitest";
import { descendants, isAlive, removeTempDirs, startHost, tempDir } from "./support/host.js";

afterAll(removeTempDirs);

describe("teardown", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("on %s settles pending prompts as cancelled, exits 0 and leaves nothing behind", async (signal) => {
    const host = await startHost();
    const ids = (await Promise.all([0, 1, 2, 3].map(() => host.client.newSession(tempDir())))).map((s) => s.sessionId);
    const turns = ids.map((id) => host.client.prompt(id, `/script [{"say":"working"},{"sleep_ms":60000}]`));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exited = once(host.client.child!, "exit") as Promise<[number | null, string | null]>;
    process.kill(host.pid, signal);
    const results = await Promise.all(turns);
    for (const result of results) expect(result.stopReason).toBe("cancelled");
    const [code] = await exited;
    expect(code).toBe(0);
    expect(isAlive(host.pid)).toBe(false);
    expect(descendants(host.pid)).toEqual([]);
    expect(host.stderr()).toContain("teardown finished");
  });

  it("on stdin EOF exits 0 and logs why it ended", async () => {
    const host = await startHost();
    const { sessionId } = await host.client.newSession(tempDir());
    expect((await host.client.prompt(sessionId, "hi")).text).toBe("You said: hi");
    expect(await host.dispose()).toBe(0);
    expect(isAlive(host.pid)).toBe(false);
    expect(host.stderr()).toMatch(/"reason":"stdin closed".*"teardown finished"/s);
  });

  it("is memoized: a signal during a stdin-closed teardown does not start a second one", async () => {
    const host = await startHost();
    await host.client.newSession(tempDir());
    const exited = once(host.client.child!, "exit") as Promise<[number | null]>;
    host.client.child!.stdin!.end();
    process.kill(host.pid, "SIGTERM");
    const [code] = await exited;
    expect(code).toBe(0);
    expect(host.stderr().match(/teardown started/g)).toHaveLength(1);
  });
});
