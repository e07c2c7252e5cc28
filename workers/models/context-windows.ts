// The context window (tokens) a model's usage is measured against: usage_update's `size`.
// A configured value (--context-window) wins; else the longest known name prefix below; else DEFAULT_CONTEXT_WINDOW.
// Local servers (vLLM, Ollama, llama.cpp) run models with whatever window they were started with: configure it.

export const DEFAULT_CONTEXT_WINDOW = 128_000;

const KNOWN: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  ["deepseek-chat", 128_000],
  ["deepseek-reasoner", 128_000],
  ["gpt-3.5-turbo", 16_385],
  ["gpt-4-turbo", 128_000],
  ["gpt-4o", 128_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-5", 400_000],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4-mini", 200_000],
];

export function contextWindow(model: string, configured: number | undefined): number {
  if (configured !== undefined) return configured;
  let best: readonly [string, number] | undefined;
  for (const entry of KNOWN) {
    if (model.startsWith(entry[0]) && entry[0].length > (best?.[0].length ?? 0)) best = entry;
  }
  return best?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}
