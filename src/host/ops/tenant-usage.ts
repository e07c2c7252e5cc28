// Model requests, errors and tokens by tenant and model since the host started, for `_host/status` (the metrics
// count the same with prom-client). Both keys are bounded: tenants by the tokens file, models by the configuration.
import type { ModelUsage } from "../../protocol/host-status.js";
import type { LifecycleHooks } from "../session/lifecycle-hooks.js";

export class TenantUsage {
  readonly #rows = new Map<string, ModelUsage>();

  constructor(hooks: LifecycleHooks) {
    hooks.on("modelCallEnded", ({ tenant, model, outcome, tokens }) => {
      const key = JSON.stringify([tenant, model]);
      let row = this.#rows.get(key);
      if (!row) {
        row = { tenant, model, requests: 0, errors: 0, tokens: { prompt: 0, completion: 0, cached: 0 } };
        this.#rows.set(key, row);
      }
      row.requests++;
      if (outcome === "error") row.errors++;
      if (tokens) {
        row.tokens.prompt += tokens.prompt;
        row.tokens.completion += tokens.completion;
        row.tokens.cached += tokens.cached;
      }
    });
  }

  rows(): ModelUsage[] {
    return [...this.#rows.values()].map((row) => ({ ...row, tokens: { ...row.tokens } }));
  }
}
