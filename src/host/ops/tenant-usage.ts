// Model requests, errors and tokens by tenant and model since the host started, for `_host/status` (the metrics
// count the same with prom-client). Both keys are bounded: tenants by the tokens file, models by the configuration.
import type { ModelUsage } from "../../protocol/host-status.js";
import type { LifecycleHooks } from "../session/lifecycle-hooks.js";

export class TenantUsage {
  /** By tenant (null: none), then by model. */
  readonly #rows = new Map<string | null, Map<string, ModelUsage>>();

  constructor(hooks: LifecycleHooks) {
    hooks.on("modelCallEnded", ({ tenant, model, outcome, tokens }) => {
      let models = this.#rows.get(tenant);
      if (!models) this.#rows.set(tenant, (models = new Map()));
      let row = models.get(model);
      if (!row) {
        row = { tenant, model, requests: 0, errors: 0, tokens: { prompt: 0, completion: 0, cached: 0 } };
        models.set(model, row);
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
    return [...this.#rows.values()].flatMap((models) =>
      [...models.values()].map((row) => ({ ...row, tokens: { ...row.tokens } })),
    );
  }
}
