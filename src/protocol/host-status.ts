// The `_host/status` ACP extension method: the host's figures (as `_host/stats`) plus one row per open session, in
// pages. Shared by the host (which answers it), the client library and `acp-session-host status`.
import { z } from "zod";
import { HostStats } from "./host-stats.js";
import { EndpointStatus } from "./provider-endpoints.js";

export const HOST_STATUS_METHOD = "_host/status";

export const HostStatusRequest = z
  .object({
    /** Rows per page (at most 500). */
    pageSize: z.number().int().min(1).max(500).optional(),
    /** The nextCursor of the previous page. */
    cursor: z.string().optional(),
    /**
     * false: the rows leave out what only the sessions' workers know (workerActiveMs, heapUsedMiB are null), so the
     * answer asks no worker anything: cheap enough to poll every second.
     */
    workerFigures: z.boolean().optional(),
    /** true: with the host's own samples of its recent figures (`history`), what a chart draws from its first paint. */
    history: z.boolean().optional(),
    /** With history: only the samples taken after this time (ms since the epoch), what a page polling for more asks. */
    historyAfter: z.number().optional(),
  })
  .nullish()
  .transform((params) => ({
    pageSize: params?.pageSize ?? 100,
    cursor: params?.cursor ?? null,
    workerFigures: params?.workerFigures ?? true,
    history: params?.history ?? false,
    historyAfter: params?.historyAfter ?? null,
  }));
export type HostStatusRequest = z.input<typeof HostStatusRequest>;
export type HostStatusParams = z.output<typeof HostStatusRequest>;

const Count = z.number().int().nonnegative();
const TokenCounts = z.object({ prompt: Count, completion: Count, cached: Count });

export const SessionStatus = z.object({
  sessionId: z.string(),
  /** busy: a prompt in flight; live: a worker and nothing running; hibernated: no worker (restored on its next prompt). */
  state: z.enum(["busy", "live", "hibernated"]),
  /** The session's worker thread, while it has one. */
  threadId: z.number().int().nullable(),
  /** Time the worker's event loop has been busy (ms), and its JS heap in use (MiB); null without a worker. */
  workerActiveMs: z.number().nonnegative().nullable(),
  heapUsedMiB: z.number().nonnegative().nullable(),
  /** A permission request of its running turn waits for a controller's answer. */
  waitingForPermission: z.boolean(),
  /** Turns answered since it was opened in this host. */
  turns: Count,
  /** ms since its last prompt or load. */
  idleMs: z.number().nonnegative(),
  /** The cost inputs: the session's token sums since it was created, as its provider reported them (null: none yet). */
  tokens: TokenCounts.nullable(),
});
export type SessionStatus = z.infer<typeof SessionStatus>;

/** Requests to one model and the tokens it reported, for one tenant, since the host started. */
export const ModelUsage = z.object({
  /** null: sessions of no tenant. */
  tenant: z.string().nullable(),
  model: z.string(),
  requests: Count,
  /** Requests that failed (each retry counts). */
  errors: Count,
  tokens: TokenCounts,
});
export type ModelUsage = z.infer<typeof ModelUsage>;

/** One of the host's samples of itself (src/host/ops/host-history.ts): counts as of `at`, sums since the host started. */
export const HostSample = z.object({
  /** ms since the epoch. */
  at: z.number(),
  workers: Count,
  rssBytes: Count,
  /** Turns ended since the host started. */
  turns: Count,
  /** Model tokens (prompt and completion) since the host started, by tenant (null: none) and model. */
  tokens: z.array(z.object({ tenant: z.string().nullable(), model: z.string(), tokens: Count })),
});
export type HostSample = z.infer<typeof HostSample>;

export const HostStatus = HostStats.extend({
  sessionRows: z.array(SessionStatus),
  /** Model usage by tenant and model (a tenant sees only its own). */
  usage: z.array(ModelUsage),
  /** Asked for (`history: true`): the host's samples of the last 15 minutes, oldest first. */
  history: z.array(HostSample).optional(),
  /** Each provider endpoint the model gateway schedules (none without a real model, or from an older host). */
  endpoints: z.array(EndpointStatus).default([]),
  nextCursor: z.string().optional(),
});
export type HostStatus = z.infer<typeof HostStatus>;
