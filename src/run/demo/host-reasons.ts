// The host's own word on what went wrong: its warnings and errors, read from its JSON log (stderr) while the demo
// runs, so a failed session is shown with the cause the host logged (a sandbox it could not make, a worker that
// died) rather than only the symptom the demo's check sees afterwards (a file that was not built).
/** pino's level numbers: warn and above. */
const WARN = 40;

interface Reason {
  sessionId: string | null;
  text: string;
}

export class HostReasons {
  readonly #reasons: Reason[] = [];
  readonly #tail: string[] = [];

  /** A line of the host's stderr (HostClient.spawn's `stderr` callback). */
  readonly line = (line: string): void => {
    this.#tail.push(line);
    if (this.#tail.length > 10) this.#tail.shift();
    const reason = parse(line);
    if (reason) this.#reasons.push(reason);
  };

  /** What the host logged about this session, then what it logged about itself (no session), each once. */
  about(sessionId: string | null): string[] {
    const texts = this.#reasons
      .filter((reason) => (sessionId !== null && reason.sessionId === sessionId) || reason.sessionId === null)
      .sort((a, b) => Number(a.sessionId === null) - Number(b.sessionId === null))
      .map((reason) => reason.text);
    return [...new Set(texts)];
  }

  /** The host's last lines, warnings or not: what is left to show when it logged no warning or error. */
  tail(): string[] {
    return [...this.#tail];
  }
}

function parse(line: string): Reason | null {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return line.trim().length > 0 ? { sessionId: null, text: line.trim() } : null;
  }
  if (typeof entry !== "object" || entry === null) return null;
  const fields = entry as Record<string, unknown>;
  if (typeof fields.level !== "number" || fields.level < WARN) return null;
  const err = fields.err as { message?: unknown } | undefined;
  const why = [fields.detail, fields.reason, fields.cause, fields.error, err?.message].find(
    (value): value is string => typeof value === "string" && value.length > 0,
  );
  const text = `${String(fields.msg ?? "")}${why ? `: ${why}` : ""}`;
  return { sessionId: typeof fields.sessionId === "string" ? fields.sessionId : null, text };
}
