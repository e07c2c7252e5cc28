// The contract of the trace export thread (workers/trace-export/): one thread per tracing host that turns finished
// span data (src/protocol/trace.ts) into OTLP/HTTP protobuf exports with the OpenTelemetry SDK's batch processor
// and exporter. The main thread sends it batches of records (its turns' spans and the session workers' spans it has
// checked, worker-events.ts); the thread tells it, once per export, how many spans that export settled and whether it
// failed, so that the main thread holds the bound on spans not yet exported and counts drops as it sends.
// Why a thread of its own: conversion, serialization and HTTP (retries, timeouts, a slow or failing collector) then
// run in an isolate whose small heap collects cheaply, and never on the thread that routes every session's turn.
import type { SpanData } from "./trace.js";

/** The instrumentation scope (and the service's name and version) the spans are exported under. */
export interface ExportScope {
  name: string;
  version: string;
}

/** The thread's workerData. */
export interface ExportThreadData {
  scope: ExportScope;
  /** Spans the main thread lets be unsettled at once: the batch processor's queue is as long, so it never drops. */
  queueLimit: number;
}

/** Main thread → export thread. */
export type ExportCommand =
  /** Records to export, already checked where they entered the host. */
  | { type: "spans"; spans: SpanData[] }
  /** Export what is queued, then stop: answered with "shut". */
  | { type: "shutdown" };

/** Export thread → main thread. */
export type ExportReport =
  /** One export settled this many spans; failed: they were not delivered (error says why, for the host's log). */
  | { type: "settled"; spans: number; failed: boolean; error: string | null }
  /** The shutdown's export is done (or gave up). */
  | { type: "shut" };

/** The main thread's check of what the export thread posts: null for anything else. */
export function asExportReport(value: unknown): ExportReport | null {
  if (typeof value !== "object" || value === null) return null;
  const report = value as Record<string, unknown>;
  if (report.type === "shut") return { type: "shut" };
  if (report.type !== "settled") return null;
  const { spans, failed, error } = report;
  if (!Number.isInteger(spans) || (spans as number) < 0 || typeof failed !== "boolean") return null;
  if (error !== null && typeof error !== "string") return null;
  return { type: "settled", spans: spans as number, failed, error };
}

/** The export thread's check of what the main thread posts: null for anything else. */
export function asExportCommand(value: unknown): ExportCommand | null {
  if (typeof value !== "object" || value === null) return null;
  const command = value as Record<string, unknown>;
  if (command.type === "shutdown") return { type: "shutdown" };
  return command.type === "spans" && Array.isArray(command.spans)
    ? { type: "spans", spans: command.spans as SpanData[] }
    : null;
}
