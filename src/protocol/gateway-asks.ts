// Main thread → gateway and session worker → gateway (src/protocol/model-gateway.ts has the contract): parsed by the
// gateway's thread only. A module of its own, so a session worker's bundle does not hold these schemas: it only sends
// them.
import * as z from "zod/mini";
import { RequestId } from "./model-gateway.js";
import { ModelConfig } from "./port.js";
import { Budget } from "./budget.js";

/** Whose a session's requests are, for the order in which an endpoint's waiting requests get room (fair-queue.ts). */
export const Share = z.object({
  /** null: a session of no tenant (stdio, a host without a tokens file). */
  tenant: z.nullable(z.string()),
  /** The id of the tree's root session: a parent and its children share one place. */
  tree: z.string(),
  priority: z.enum(["interactive", "batch"]),
  /** The tree's budget, given by its root session (a child's connect names none: its tree's stands). */
  budget: z.optional(Budget),
});
export type Priority = Share["priority"];
export type Share = z.infer<typeof Share>;

/** Main thread → gateway, on the gateway's own port (its worker's parentPort). */
export const GatewayControl = z.discriminatedUnion("type", [
  /** The models requests may name (the host's --model and --models). */
  z.object({ type: z.literal("models"), models: z.array(ModelConfig) }),
  /** A session worker's channel: its requests arrive on `port`. `label` names it in the gateway's log lines. */
  z.object({ type: z.literal("connect"), label: z.string(), share: Share }),
  /** Tenants' weights in the fair share of each endpoint (the tokens file's); a tenant not named weighs 1. */
  z.object({ type: z.literal("weights"), weights: z.record(z.string(), z.number().check(z.positive())) }),
  /** A session tree's budget (session/new's, or _host/set_budget's): a request that would pass it is not sent. */
  z.object({ type: z.literal("budget"), tree: z.string(), budget: Budget }),
]);
export type GatewayControl = z.infer<typeof GatewayControl>;

/** Session worker → gateway. */
export const GatewayAsk = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("request"),
    id: RequestId,
    /** A model the gateway was told of, by name. */
    model: z.string().check(z.minLength(1)),
    /** The chat-completions messages and tools (the gateway adds model, stream and usage options). */
    messages: z.array(z.record(z.string(), z.unknown())).check(z.minLength(1)),
    tools: z.optional(z.array(z.record(z.string(), z.unknown()))),
    /** Send text and reasoning deltas as they arrive (the session shows them: --stream-chunks). */
    forward: z.boolean(),
    /** The W3C traceparent of the request's span (a traced turn): sent to the model server as a header. */
    traceparent: z.optional(z.string().check(z.regex(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/))),
  }),
  z.object({ type: z.literal("cancel"), id: RequestId }),
  /**
   * The tokens the session has spent since it was created (its log's sums, and every response since): told on each
   * connect, so a restarted host or gateway counts the tree's spend against its budget.
   */
  z.object({
    type: z.literal("spent"),
    tokens: z.number().check(z.nonnegative()),
    /** What they cost (US dollars) at the prices of the models the worker has run (0 where none has a price). */
    costUsd: z.optional(z.number().check(z.nonnegative())),
    /** The tree's budget as the session's log holds it (a root's: its header's or its last _host/set_budget's). */
    budget: z.optional(Budget),
  }),
]);
export type GatewayAsk = z.infer<typeof GatewayAsk>;
