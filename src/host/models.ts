// The models this host was configured with (flags → ModelConfig), and the session config option that picks one.
import type { SessionConfigOption } from "@agentclientprotocol/sdk/unstable";
import type { ModelConfig } from "../protocol/port.js";
import type { HostOptions } from "../host-options.js";

export const MODEL_OPTION_ID = "model";

export const DEEPSEEK_PRESET = {
  baseUrl: "https://api.deepseek.com",
  apiKeyEnv: "DEEPSEEK_API_KEY",
  model: "deepseek-chat",
} as const;
export const DEFAULT_API_KEY_ENV = "OPENAI_API_KEY";

export class HostModels {
  /** The model of a new session. */
  readonly default: ModelConfig;
  readonly #byName: ReadonlyMap<string, ModelConfig>;

  constructor(config: HostOptions) {
    const names = (config.models ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name.length > 0);
    const base = baseConfig(config);
    const models = [...new Set([base.model, ...names])].map((model): ModelConfig => ({ ...base, model }));
    this.default = models[0]!;
    this.#byName = new Map(models.map((model) => [model.model, model]));
  }

  get names(): string[] {
    return [...this.#byName.keys()];
  }

  get all(): ModelConfig[] {
    return [...this.#byName.values()];
  }

  get(name: string): ModelConfig | undefined {
    return this.#byName.get(name);
  }

  /** The model of that name, or the default where this host no longer serves it (a stored session's, a fork's). */
  resolve(name: string): ModelConfig {
    return this.#byName.get(name) ?? this.default;
  }

  /** The session's config options (`configOptions` of session/new, set_config_option and config_option_update). */
  configOptions(current: string): SessionConfigOption[] {
    return [
      {
        id: MODEL_OPTION_ID,
        name: "Model",
        description: "The model that answers this session's prompts",
        category: "model",
        type: "select",
        currentValue: current,
        options: this.names.map((name) => ({ value: name, name })),
      },
    ];
  }
}

function baseConfig(config: HostOptions): ModelConfig {
  const provider = config.modelProvider;
  if (provider === "scripted") return { provider: "scripted", model: "scripted", retries: 0 };
  const preset = provider === "deepseek" ? DEEPSEEK_PRESET : undefined;
  const model = config.model ?? preset?.model;
  const baseUrl = config.baseUrl ?? preset?.baseUrl;
  // The flag schema refuses openai-compatible without both; this guards a config built some other way.
  if (!model || !baseUrl) throw new Error("an openai-compatible model needs --base-url and --model");
  return {
    provider: "openai-compatible",
    model,
    baseUrl,
    apiKeyEnv: config.apiKeyEnv ?? preset?.apiKeyEnv ?? DEFAULT_API_KEY_ENV,
    retries: config.modelRetries,
    idleTimeoutMs: config.modelIdleTimeoutMs,
    queueTimeoutMs: config.modelQueueTimeoutMs,
    ...(config.modelConcurrency !== undefined ? { concurrency: config.modelConcurrency } : {}),
    ...(config.contextWindow !== undefined ? { contextWindow: config.contextWindow } : {}),
    ...(config.modelPrice !== undefined ? { price: priceFrom(config.modelPrice) } : {}),
    ...(preset || isDeepSeek(baseUrl)
      ? { reasoningHistory: "current-turn" as const, cacheKeyField: "user_id" as const }
      : { cacheKeyField: "prompt_cache_key" as const }),
  };
}

/** DeepSeek's API wants a turn's reasoning back within that turn and never after it (see docs/models.md, Reasoning). */
function isDeepSeek(baseUrl: string): boolean {
  return URL.canParse(baseUrl) && new URL(baseUrl).hostname === "api.deepseek.com";
}

/** --model-price's INPUT,CACHED,OUTPUT (the flag's schema checked its shape). */
function priceFrom(flag: string): { input: number; cachedInput: number; output: number } {
  const [input, cachedInput, output] = flag.split(",").map(Number) as [number, number, number];
  return { input, cachedInput, output };
}
