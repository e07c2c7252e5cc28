import { describe, expect, it } from "vitest";
import { parseLeaseSamples } from "../../workers/standby-warm-up.js";

describe("a standby thread's warm-up", () => {
  it("parses a valid init and log header, so the lease's own parses find their schemas' parsers built", () => {
    expect(parseLeaseSamples()).toBe(true);
  });
});
