// Picks the model implementation a session's configuration names.
import type { ModelConfig } from "../../src/protocol/port.js";
import type { Model } from "./model.js";
import { ScriptedModel } from "./scripted.js";

export function createModel(config: ModelConfig, options: { allowFaultInjection: boolean }): Model {
  switch (config.provider) {
    case "scripted":
      return new ScriptedModel(options);
    case "openai-compatible":
      throw new Error("the openai-compatible provider is not built yet");
  }
}
