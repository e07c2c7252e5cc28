// spawn_agent: delegates part of the task to a child session, a session like any other in a worker of its own, made
// by the host on this worker's request (loop/child-requests.ts). The child runs the prompt in the session's mode or a
// narrower one, in the session's workspace or a directory inside it; the result is the child's final message. The
// same child is prompted again by naming it (session).
import * as z from "zod/mini";
import { SessionModeId } from "../../src/protocol/port.js";
import { titleFrom } from "../../src/protocol/session-log.js";
import type { ChildRequests } from "../loop/child-requests.js";
import { readPolicy } from "./policy.js";
import type { Tool } from "./tool.js";

const Input = z.object({
  prompt: z.string().check(z.minLength(1), z.describe("What the child agent is to do (its prompt)")),
  mode: z.optional(SessionModeId.check(z.describe("The child's mode: this session's (the default) or a narrower one (read-only < ask < auto < full-access)"))),
  session: z.optional(z.string().check(z.describe("A child session of this session to prompt again: the id an earlier spawn_agent result named"))),
  cwd: z.optional(z.string().check(z.describe("The child's working directory: this session's (the default) or a directory inside it"))),
  title: z.optional(z.string().check(z.describe("A short name for the child, shown to the user"))),
  description: z.optional(z.string().check(z.describe("What the child is for, shown to the user"))),
});
type Input = z.infer<typeof Input>;

export function spawnAgentTool(children: ChildRequests): Tool<Input> {
  return {
    name: "spawn_agent",
    description:
      "Delegate part of the task to a child agent in a session of its own: it runs the prompt (with the same tools, in this session's mode or a narrower one) and its final message is the result. Name an earlier child with `session` to prompt it again.",
    kind: "other",
    input: Input,
    // Several children asked for in one answer work at once, each in its own worker.
    concurrent: true,
    title: (input) => `spawn_agent: ${input.title ?? titleFrom(input.prompt)}`,
    // The child's own mode governs what it does; asking for it changes nothing.
    policy: readPolicy,
    async run(input, context) {
      const outcome = await children.ask({ turnId: context.turnId, toolCallId: context.toolCallId, ...input }, context.signal);
      if (!outcome) return { output: "spawn_agent: the turn was cancelled; the child's turn was cancelled with it", isError: true };
      if (!outcome.ok) return { output: outcome.error, isError: true };
      const note = `[child session ${outcome.sessionId}, stop reason ${outcome.stopReason}; pass "session": "${outcome.sessionId}" to prompt it again]`;
      return { output: outcome.message.length > 0 ? `${outcome.message}\n\n${note}` : `(the child ended its turn without a message)\n\n${note}`, isError: outcome.stopReason === "cancelled" };
    },
  };
}
