// Port fuzz: a test-only worker posts seeded random messages on its session's ports. The main thread never
// crashes; the session's turn ends or fails with -32603 and its worker is replaced; another session keeps answering.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";

const FUZZ_WORKER = fileURLToPath(new URL("../../dist/test/support/fuzz-worker.js", import.meta.url));
const seed = Number(process.env.FUZZ_SEED ?? 15);
const ROUNDS = 8;

describe("port fuzz", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost(["--allow-fault-injection", "--worker-entry", FUZZ_WORKER, "--warm-workers", "1"]);
  });
  afterAll(async () => {
    await host?.dispose();
  });

  it(`random messages on a session's ports end at most that session's turn (seed ${seed})`, async () => {
    const { sessionId: bystander } = await host.client.newSession(tempDir());
    for (let round = 0; round < ROUNDS; round++) {
      const { sessionId } = await host.client.newSession(tempDir());
      const fuzz = `/fuzz ${seed + round} 40`;
      const outcome = await host.client.prompt(sessionId, fuzz).then(
        (result) => ({ ok: true as const, result }),
        (error: unknown) => ({ ok: false as const, error: error as { code?: number } }),
      );
      // The fuzzed turn either survives or fails as the host's fault (-32603), never as the client's.
      if (!outcome.ok) expect(outcome.error.code, `round ${round} (${fuzz})`).toBe(-32603);
      expect((await host.client.prompt(bystander, `still there ${round}`)).text).toBe(
        `fuzz worker says: still there ${round}`,
      );
      expect((await host.client.prompt(sessionId, "after")).text).toBe("fuzz worker says: after");
      await host.client.close(sessionId);
    }
    expect(host.child.exitCode).toBeNull();
  }, 180_000);
});
