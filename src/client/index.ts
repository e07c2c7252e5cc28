export { ConnectionLost, HostClient } from "./host-client.js";
export { ChildSession } from "./child-session.js";
export { HOST_STATS_METHOD } from "../protocol/host-stats.js";
export type { HostStats, HostStatsRequest } from "../protocol/host-stats.js";
export { MCP_STATUS_METHOD } from "../protocol/mcp-status.js";
export type { McpStatusNotification } from "../protocol/mcp-status.js";
export type { AttachResponse, DetachedNotification, TurnEndedNotification } from "../protocol/attach.js";
export type {
  AttachOptions,
  ConnectOptions,
  ForkOptions,
  NewSessionOptions,
  OpenOptions,
  PermissionPolicy,
  PromptOptions,
  PromptResult,
  ReconnectOptions,
  SpawnOptions,
  SystemPromptOption,
  ToolCallSummary,
  Understands,
} from "./host-client.js";
