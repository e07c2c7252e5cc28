import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";

describe("faults stay in their session", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost(["--allow-fault-injection", "--cancel-grace-ms", "300", "--session-heap-mb", "64"]);
  });
  afterAll(async () => {
    await host.dispose();
  });

  it("a spinning session is hard-cancelled after the grace while others keep answering", async () => {
    const spinner = (await host.client.newSession(tempDir())).sessionId;
    const other = (await host.client.newSession(tempDir())).sessionId;
    // The spin starts right after the worker reports the (failed) tool call: once that update is here, the worker
    // is busy burning CPU and cannot take a cooperative cancel.
    let spinStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => (spinStarted = resolve));
    const spinning = host.client.prompt(spinner, `/script [{"tool":"no_such_tool"},{"spin_ms":60000}]`, {
      onUpdate: (update) => {
        if (update.sessionUpdate === "tool_call_update" && update.status === "failed") spinStarted();
      },
    });
    await started;
    for (let i = 0; i < 3; i++) expect((await host.client.prompt(other, `ping ${i}`)).text).toBe(`You said: ping ${i}`);
    await host.client.cancel(spinner);
    const result = await spinning;
    expect(result.stopReason).toBe("cancelled");
    expect(host.stderr()).toContain("terminating its worker");
    expect((await host.client.prompt(spinner, "alive")).text).toBe("You said: alive");
  });

  it("a crash fails only its own prompt; the session answers again", async () => {
    const crasher = (await host.client.newSession(tempDir())).sessionId;
    const other = (await host.client.newSession(tempDir())).sessionId;
    const slow = host.client.prompt(other, `/script [{"sleep_ms":300},{"say":"unharmed"}]`);
    await expect(host.client.prompt(crasher, `/script [{"crash":"kaboom"}]`)).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("kaboom"),
      data: { reason: "WORKER_FAILED", sessionId: crasher },
    });
    expect((await slow).text).toBe("unharmed");
    expect((await host.client.prompt(crasher, "back")).text).toBe("You said: back");
  });

  it("allocating past the heap limit kills only that worker", async () => {
    const hog = (await host.client.newSession(tempDir())).sessionId;
    const other = (await host.client.newSession(tempDir())).sessionId;
    await expect(host.client.prompt(hog, `/script [{"alloc_mb":400}]`)).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("ERR_WORKER_OUT_OF_MEMORY"),
      data: { reason: "WORKER_FAILED", sessionId: hog },
    });
    expect((await host.client.prompt(other, "fine")).text).toBe("You said: fine");
    expect((await host.client.prompt(hog, "recovered")).text).toBe("You said: recovered");
  });

  it("fault steps are refused without --allow-fault-injection", async () => {
    const strict = await import("../support/host.js").then((m) => m.startHost());
    try {
      const { sessionId } = await strict.client.newSession(tempDir());
      await expect(strict.client.prompt(sessionId, `/script [{"crash":"no"}]`)).rejects.toMatchObject({
        code: -32602,
        data: expect.objectContaining({ reason: "PROMPT_REJECTED" }),
      });
      expect((await strict.client.prompt(sessionId, `/script [{"say":"ok"}]`)).text).toBe("ok");
    } finally {
      await strict.dispose();
    }
  });
});

describe("turn limits", () => {
  it("a turn that keeps calling tools stops with max_turn_requests", async () => {
    const host = await startHost(["--max-turn-requests", "2"]);
    try {
      const { sessionId } = await host.client.newSession(tempDir());
      const result = await host.client.prompt(
        sessionId,
        `/script [{"tool":"t1"},{"tool":"t2"},{"tool":"t3"},{"say":"never"}]`,
      );
      expect(result.stopReason).toBe("max_turn_requests");
      expect(result.toolCalls).toHaveLength(2);
      expect(result.text).not.toContain("never");
    } finally {
      await host.dispose();
    }
  });
});
