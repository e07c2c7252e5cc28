// The run command's progress bar: drawn in place on a terminal, absent otherwise.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ProgressBar } from "../../src/run/progress.js";

function stream(isTTY: boolean): NodeJS.WriteStream & { text(): string } {
  const out = new PassThrough() as unknown as NodeJS.WriteStream & { text(): string };
  let text = "";
  out.on("data", (chunk: Buffer) => (text += chunk.toString()));
  Object.assign(out, { isTTY, text: () => text });
  return out;
}

describe("ProgressBar", () => {
  it("is not drawn at all when the stream is not a terminal", () => {
    expect(ProgressBar.forStream(stream(false))).toBeNull();
  });

  it("redraws one line in place and erases it when cleared", async () => {
    const out = stream(true);
    const bar = ProgressBar.forStream(out)!;
    bar.update({ done: 0, total: 4, failed: 0 });
    bar.update({ done: 4, total: 4, failed: 1 });
    bar.clear();
    await new Promise((resolve) => setImmediate(resolve));
    const frames = out
      .text()
      .split("\r\x1b[2K")
      .filter((frame) => frame.length > 0);
    expect(frames[0]).toMatch(/^░{28} 0\/4 prompts · [\d.]+s$/);
    // The final state is always drawn, whatever the redraw throttle.
    expect(frames[1]).toMatch(/^█{28} 4\/4 prompts · 1 failed · [\d.]+s$/);
    expect(out.text().endsWith("\r\x1b[2K")).toBe(true);
    expect(out.text()).not.toContain("\n");
  });
});
