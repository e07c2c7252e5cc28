// spawn_agent: delegates part of the task to a child session, a session like any other in a worker of its own, made
// by the host on this worker's request (loop/child-requests.ts). The child runs the prompt in the session's mode or a
// narrower one, in the session's workspace or a directory inside it; the result is the child's final message. The
// same child is prompted again by naming it (session).
import * as z from "zod/mini";
import { SessionModeId } from "../../src/protocol/port.js";
import { titleFrom } from "../../src/protocol/log/session-log.js";
import type { ChildRequests } from "../loop/child-requests.js";
import { readPolicy } from "./policy.js";
import type { Tool } from "./tool.js";

// Every request carries the tools' schemas: the descriptions say what a model needs, briefly.
const Input = z.lazy(() =>
  z.object({
    prompt: z.string().check(z.minLength(1)),
    mode: z.optional(SessionModeId.check(z.describe("default: yours; never wider"))),
    session: z.optional(z.string().check(z.describe("an earlier child's id, to prompt it again"))),
    cwd: z.optional(z.string().check(z.describe("default: yours; or a directory inside it"))),
    title: z.optional(z.string()),
    description: z.optional(z.string()),
  }),
);
type Input = z.infer<typeof Input>;

export function spawnAgentTool(children: ChildRequests): Tool<Input> {
  return {
    name: "spawn_agent",
    description: "Delegate to a child agent with your tools: it runs the prompt; its final message is the result.",
    kind: "other",
    input: Input,
    // Several children asked for in one answer work at once, each in its own worker.
    concurrent: true,
    title: (input) => `spawn_agent: ${input.title ?? titleFrom(input.prompt)}`,
    // The child's own mode governs what it does; asking for it changes nothing.
    policy: readPolicy,
    async run(input, context) {
      const outcome = await children.ask(
        {
          turnId: context.turnId,
          toolCallId: context.toolCallId,
          ...input,
          ...(context.trace ? { trace: context.trace.context } : {}),
        },
        context.signal,
      );
      if (!outcome)
        return { output: "spawn_agent: the turn was cancelled; the child's turn was cancelled with it", isError: true };
      if (!outcome.ok) return { output: outcome.error, isError: true };
      const note = `[child session ${outcome.sessionId}, stop reason ${outcome.stopReason}; pass "session": "${outcome.sessionId}" to prompt it again]`;
      return {
        output:
          outcome.message.length > 0
            ? `${outcome.message}\n\n${note}`
            : `(the child ended its turn without a message)\n\n${note}`,
        isError: outcome.stopReason === "cancelled",
      };
    },
  };
}
