export { HostClient } from "./host-client.js";
export { HOST_STATS_METHOD } from "../protocol/host-stats.js";
export type { HostStats, HostStatsRequest } from "../protocol/host-stats.js";
export type {
  AttachOptions,
  NewSessionOptions,
  PermissionPolicy,
  PromptOptions,
  PromptResult,
  SpawnOptions,
  ToolCallSummary,
} from "./host-client.js";
