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
      // Short rounds too: a few messages often leave the turn standing, so both outcomes are checked.
      const fuzz = `/fuzz ${seed + round} ${round % 2 === 0 ? 40 : 3}`;
      const outcome = await host.client.prompt(sessionId, fuzz).then(
        (result) => ({ ok: true as const, result }),
        (error: unknown) => ({ ok: false as const, error: error as { code?: number; data?: { reason?: unknown } } }),
      );
      // The fuzzed turn either survives, ended by a well-formed turn_end of its own (a fuzzed one or the worker's
      // last) with only its own messages shown, or fails as its worker's fault, never as the client's.
      if (outcome.ok) {
        expect(outcome.result.stopReason, `round ${round} (${fuzz})`).toBe("end_turn");
        expect(outcome.result.text, `round ${round} (${fuzz})`).toMatch(/^(fuzz)*(fuzz worker says: \/fuzz \d+ \d+)?$/);
      } else {
        expect(outcome.error.code, `round ${round} (${fuzz})`).toBe(-32603);
        expect(outcome.error.data?.reason, `round ${round} (${fuzz})`).toBe("WORKER_FAILED");
      }
      expect((await host.client.prompt(bystander, `still there ${round}`)).text).toBe(
        `fuzz worker says: still there ${round}`,
      );
      expect((await host.client.prompt(sessionId, "after")).text).toBe("fuzz worker says: after");
      await host.client.close(sessionId);
    }
    expect(host.child.exitCode).toBeNull();
  }, 180_000);
});
