// Trace and span ids as W3C Trace Context writes them: 32 and 16 lowercase hex digits, never all zeroes (drawn again).
import { afterEach, expect, it, vi } from "vitest";
import { randomSpanId, randomTraceId } from "../../src/protocol/trace.js";

afterEach(() => vi.restoreAllMocks());

it("draws lowercase hex ids of W3C's lengths, and draws again rather than return all zeroes", () => {
  for (let i = 0; i < 1000; i++) {
    expect(randomTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(randomSpanId()).toMatch(/^[0-9a-f]{16}$/);
  }
  const random = vi.spyOn(Math, "random").mockReturnValueOnce(0).mockReturnValueOnce(0);
  random.mockReturnValueOnce(0.5).mockReturnValueOnce(0.25);
  expect(randomSpanId()).toBe("8000000040000000");
});
