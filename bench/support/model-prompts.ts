// Prompts of the model-path benchmark, the same from the host and from the direct client: the test server echoes a
// prompt, so its length sets how many chunks the answer streams in.

/** Prompt number i, padded so that its echo takes about `chars` characters (0: unpadded). */
export function benchPrompt(i: number, chars = 0): string {
  return chars > 0 ? `prompt ${i} ${"x".repeat(Math.max(0, chars - 40))}` : `prompt ${i}`;
}
