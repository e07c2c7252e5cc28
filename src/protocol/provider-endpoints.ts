// What the model gateway says of each provider endpoint it schedules (workers/gateway/endpoint-scheduler.ts): posted to
// the main thread whenever it changes (at most once per turn of the gateway's event loop), read by `_host/status` and
// the metrics. Parsed by the main thread only; the gateway imports the types.
import { z } from "zod";

const Count = z.number().int().nonnegative();

export const EndpointStatus = z.object({
  /** The base URL and the model (never the key). */
  baseUrl: z.string(),
  model: z.string(),
  /** Requests that may be in flight now: --model-concurrency, or what the endpoint's 429s taught. */
  window: z.number().int().positive(),
  /** --model-concurrency; null: the window is learned. */
  cap: z.number().int().positive().nullable(),
  inFlight: Count,
  /** Requests waiting for room. */
  queued: Count,
  /** Nothing is sent until then (ISO time): the provider's Retry-After, or a rate limit at zero. null: not paused. */
  pausedUntil: z.string().nullable(),
  /** Since the gateway started: requests sent, refused with a 429, and failed for waiting past the queue timeout. */
  sent: Count,
  refused: Count,
  timedOut: Count,
});
export type EndpointStatus = z.infer<typeof EndpointStatus>;

/** Gateway → main thread, on the gateway's own port. */
export const EndpointsReport = z.object({
  type: z.literal("endpoints"),
  endpoints: z.array(EndpointStatus),
  /** How long each request sent since the last report waited for room (ms). */
  waitsMs: z.array(z.number().nonnegative()),
});
export type EndpointsReport = z.infer<typeof EndpointsReport>;
