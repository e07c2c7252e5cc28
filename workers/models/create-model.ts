// Picks the model implementation a session's configuration names.
import type { ModelConfig } from "../../src/protocol/port.js";
import type { SystemPromptSetting } from "../../src/protocol/system-prompt.js";
import type { Model } from "./model.js";
import type { ModelLog } from "./openai-compatible.js";
import { ScriptedModel } from "./scripted.js";

export interface ModelOptions {
  allowFaultInjection: boolean;
  /** The session's working directory (for a real model's system prompt). */
  cwd?: string;
  /** Where a model reports what the client does not see (retries). */
  log?: ModelLog;
  /** The client's system prompt for the session, added to the host's own instructions or replacing them. */
  systemPrompt?: SystemPromptSetting | null;
}

export async function createModel(config: ModelConfig, options: ModelOptions): Promise<Model> {
  switch (config.provider) {
    case "scripted":
      return new ScriptedModel(options);
    case "openai-compatible": {
      // The openai client is loaded by the sessions on that provider only, not by every worker.
      const { OpenAiCompatibleModel } = await import("./openai-compatible.js");
      return new OpenAiCompatibleModel(config, options);
    }
  }
}
