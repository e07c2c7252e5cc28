export { HostClient } from "./host-client.js";
export type {
  AttachOptions,
  NewSessionOptions,
  PermissionPolicy,
  PromptOptions,
  PromptResult,
  SpawnOptions,
  ToolCallSummary,
} from "./host-client.js";
