// The host's traces as the rest of the host sees them (the SDK behind it is loaded only when tracing is on,
// otel-tracing.ts). A turn's span opens when its prompt arrives and ends with its answer; the worker's spans
// arrive finished and are exported as they are.
import type { SpanData, TraceParent, TurnTrace } from "../../protocol/trace.js";

/** What a turn's span says of its session. */
export interface TracedSession {
  id: string;
  tenant: string | null;
  mode: string;
  model: string;
}

/** How a traced turn ended: its stop reason, or the error it was answered with. */
export type TurnOutcome = { stopReason: string } | { error: unknown };

/** A turn's invoke_agent span, open until its prompt is answered. */
export interface TurnSpan {
  /** What the session's worker is handed with the prompt; null when the turn is not sampled. */
  readonly trace: TurnTrace | null;
  end(outcome: TurnOutcome): void;
}

/** Spans of the host's own work outside turns (a restore, a hibernation, a takeover). */
export interface HostSpan {
  end(error?: string): void;
}

export interface HostTracing {
  /** A client's prompt: its span is a child of the client's _meta.traceparent when it sent one. */
  turn(session: TracedSession, meta: unknown, prompt: string): TurnSpan;
  /** A child session's prompt: its span hangs under the parent's spawn_agent call. */
  childTurn(session: TracedSession, parent: TraceParent | undefined, prompt: string): TurnSpan;
  /** A piece of the host's own work, as a span of its own (root of a trace), begun now or at startedAtMs. */
  work(name: string, attributes: Record<string, string | number | boolean>, startedAtMs?: number): HostSpan;
  /** A worker's finished spans. */
  export(spans: readonly SpanData[]): void;
  /** Spans dropped because the export queue was full, and spans whose export failed, since the host started. */
  readonly dropped: number;
  readonly exportFailed: number;
  /** Exports what is queued, within deadlineMs, then stops. */
  shutdown(deadlineMs: number): Promise<void>;
}
