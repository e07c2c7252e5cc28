// Picks the model implementation a session's configuration names.
import type { ModelConfig } from "../../src/protocol/port.js";
import type { GatewayLink } from "./gateway-link.js";
import type { SystemPromptSetting } from "../../src/protocol/system-prompt.js";
import type { Model } from "./model.js";
import { OpenAiCompatibleModel, type ModelLog } from "./openai-compatible.js";
import { ScriptedModel } from "./scripted.js";

export interface ModelOptions {
  allowFaultInjection: boolean;
  /** The session's working directory (for a real model's system prompt). */
  cwd?: string;
  /** Where a model reports what the client does not see (retries). */
  log?: ModelLog;
  /** The session's port to the host's model gateway, which makes a real model's requests. */
  gateway: GatewayLink;
  /** The client's system prompt for the session, added to the host's own instructions or replacing them. */
  systemPrompt?: SystemPromptSetting | null;
}

export function createModel(config: ModelConfig, options: ModelOptions): Model {
  switch (config.provider) {
    case "scripted":
      return new ScriptedModel(options);
    case "openai-compatible":
      return new OpenAiCompatibleModel(config, options.gateway, options);
  }
}
