// The agent's plan (ACP `plan` update): what the update_plan tool takes, the log keeps and session/load replays.
import * as z from "zod/mini";

export const PlanEntry = z.object({
  content: z.string(),
  priority: z.enum(["high", "medium", "low"]),
  status: z.enum(["pending", "in_progress", "completed"]),
});
export type PlanEntry = z.infer<typeof PlanEntry>;
