// The `_host/stats` ACP extension method: what the host reports about itself to its orchestrator.
// Shared by the host (which answers it) and the client library (which validates the answer).
import { z } from "zod";

export const HOST_STATS_METHOD = "_host/stats";

/** Params of `_host/stats`; absent params mean "read, do not reset". */
export const HostStatsRequest = z
  .object({
    /** Restart the event-loop delay histogram after reading it, so the next read covers only what follows. */
    resetEventLoopDelay: z.boolean().optional(),
  })
  .nullish()
  .transform((params) => ({ resetEventLoopDelay: params?.resetEventLoopDelay ?? false }));
/** What a client may send. */
export type HostStatsRequest = z.input<typeof HostStatsRequest>;
/** What the host's handler receives once the params are parsed. */
export type HostStatsParams = z.output<typeof HostStatsRequest>;

const Millis = z.number().nonnegative();

export const HostStats = z.object({
  pid: z.number().int().positive(),
  uptimeMs: Millis,
  sessions: z.object({
    /** Sessions in the routing table. */
    live: z.number().int().nonnegative(),
    /** Sessions with a prompt in flight. */
    busy: z.number().int().nonnegative(),
  }),
  threads: z.object({
    /** Session worker threads alive (warm spares included): made and not yet exited. */
    workers: z.number().int().nonnegative(),
    /** The most session worker threads that were alive at once since the host started. */
    mostWorkers: z.number().int().nonnegative(),
    /** Of those, started workers waiting for a session (see --warm-workers, --max-warm-workers). */
    standby: z.number().int().nonnegative(),
    /** Every thread of the host process (Linux /proc), or null where that cannot be read. */
    process: z.number().int().nonnegative().nullable(),
  }),
  /** Main-thread event-loop lag since start or the last reset, in ms: perf_hooks.monitorEventLoopDelay sampled every
   * 10 ms, minus those 10 ms (0 = timers fire on time). */
  eventLoopDelayMs: z.object({
    min: Millis,
    mean: Millis,
    p50: Millis,
    p90: Millis,
    p99: Millis,
    max: Millis,
    /** Since when the histogram has been recording (ms ago). */
    windowMs: Millis,
  }),
  /** The host's bounds (--max-live-workers, --max-rss-mb), so a reader can set the figures against them. */
  limits: z.object({
    maxLiveWorkers: z.number().int().positive(),
    maxRssBytes: z.number().int().positive(),
  }),
  /** Where sessions live. */
  store: z.object({
    /** `state dir /path` or `postgres postgres://user@host/db`. */
    label: z.string(),
    /** Shared by a fleet of hosts (PostgreSQL). */
    shared: z.boolean(),
    /** This host's name in the store's leases (--host-id). */
    hostId: z.string(),
    /** Whether the store answered its last request. */
    reachable: z.boolean(),
    /** Statements that committed session records (group commits; 0 for the state dir, whose workers fsync their logs). */
    commits: z.number().int().nonnegative(),
    /**
     * A shared store's hosts holding a live lease, with how many sessions each (read at most every 5 s); null: a
     * store of one host, or the store did not answer. Absent from a host of an earlier version.
     */
    fleetHosts: z
      .array(z.object({ hostId: z.string(), sessions: z.number().int().nonnegative() }))
      .nullable()
      .optional(),
  }),
  memory: z.object({
    rssBytes: z.number().int().nonnegative(),
    /** The main thread's V8 heap: in use (garbage not yet collected included), and reserved pages. */
    heapUsedBytes: z.number().int().nonnegative(),
    heapTotalBytes: z.number().int().nonnegative(),
    /** Memory outside the main thread's V8 heap held by its JavaScript objects (buffers among them). */
    externalBytes: z.number().int().nonnegative(),
    /** Full collections run after prompts stopped (the heap a burst grew is given back once the host is idle). */
    idleCollections: z.number().int().nonnegative(),
    /** True when no prompt has run since the last idle check: the figures are those of a host at rest. */
    atRest: z.boolean(),
  }),
});
export type HostStats = z.infer<typeof HostStats>;
