// Session worker threads run at --worker-nice (default 5) while the main thread keeps the host's priority: under a
// full CPU the thread that routes every session is served first. Read from the host's threads in /proc.
import { readFile, readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { startHost, tempDir } from "../support/host.js";

/** The nice value of each of a process's threads, by thread id. */
async function niceByThread(pid: number): Promise<Map<number, number>> {
  const nice = new Map<number, number>();
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, "utf8").catch(() => null);
    // Fields after the command name: state is the first, nice the 17th.
    if (stat) nice.set(Number(tid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
  }
  return nice;
}

describe("worker threads' priority", () => {
  it("sessions' workers run at --worker-nice, the main thread at the host's", async () => {
    const host = await startHost(["--worker-nice", "7", "--warm-workers", "0"]);
    try {
      for (const cwd of [tempDir(), tempDir()]) {
        const { sessionId } = await host.client.newSession(cwd);
        expect((await host.client.prompt(sessionId, "hi")).text).toBe("You said: hi");
      }
      const nice = await niceByThread(host.pid);
      expect(nice.get(host.pid)).toBe(0);
      expect([...nice.values()].filter((value) => value === 7)).toHaveLength(2);
    } finally {
      await host.dispose();
    }
  });

  it("--worker-nice 0 leaves them at the host's", async () => {
    const host = await startHost(["--worker-nice", "0", "--warm-workers", "0"]);
    try {
      const { sessionId } = await host.client.newSession(tempDir());
      expect((await host.client.prompt(sessionId, "hi")).text).toBe("You said: hi");
      expect(new Set((await niceByThread(host.pid)).values())).toEqual(new Set([0]));
    } finally {
      await host.dispose();
    }
  });
});
