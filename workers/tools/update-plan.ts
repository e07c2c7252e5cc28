// update_plan: the agent's plan for the task, shown to the client as a `plan` update (each call sends the whole plan,
// which replaces the one before), journaled and replayed by session/load.
import * as z from "zod/mini";
import { PlanEntry } from "../../src/protocol/plan.js";
import { readPolicy } from "./policy.js";
import type { Tool } from "./tool.js";

const Input = z.lazy(() => z.object({ entries: z.array(PlanEntry) }));
type Input = z.infer<typeof Input>;

export function updatePlanTool(): Tool<Input> {
  return {
    name: "update_plan",
    description: "Show the user your plan: all its steps (it replaces the last).",
    kind: "think",
    input: Input,
    title: (input) => `Plan: ${input.entries.length} ${input.entries.length === 1 ? "step" : "steps"}`,
    policy: readPolicy,
    async run(input, context) {
      context.showPlan(input.entries);
      const count = (status: PlanEntry["status"]) => input.entries.filter((entry) => entry.status === status).length;
      return {
        output: `plan updated: ${count("completed")} completed, ${count("in_progress")} in progress, ${count("pending")} pending`,
        isError: false,
      };
    },
  };
}
