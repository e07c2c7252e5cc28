// Faults the benchmark worked around (e.g. a warm-up prompt that failed and was retried): reported, never hidden.
const seen = new Map<string, number>();

export function recordIncident(message: string): void {
  const key = message.split("\n", 1)[0]!.slice(0, 300);
  seen.set(key, (seen.get(key) ?? 0) + 1);
}

export function incidents(): Array<{ message: string; count: number }> {
  return [...seen].map(([message, count]) => ({ message, count }));
}
