// Worker events → ACP session/update payloads. The session id is added by the caller, from the port's owner; what a
// compaction shows depends on the client (compaction_update where it advertised `session.compaction`, else a thought).
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { WorkerEvent } from "../../protocol/worker-events.js";
import type { PeerUnderstands } from "../connection/peer.js";

/** tool_call's `_meta` key: { tool: the tool's name }. */
export const TOOL_META_KEY = "acp-session-host";

/** usage_update's `_meta` key: { tokens: this response's {prompt, completion, cached}, session: the session's sums }. */
export const USAGE_META_KEY = "acp-session-host";

export function toSessionUpdates(event: WorkerEvent, client: Pick<PeerUnderstands, "compaction">): SessionUpdate[] {
  switch (event.type) {
    case "assistant_message":
      return event.blocks
        .filter((block) => block.length > 0)
        .map((text) => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } }));
    case "thought":
      return event.text.length > 0
        ? [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.text } }]
        : [];
    case "user_message":
      return [{ sessionUpdate: "user_message_chunk", content: { type: "text", text: event.text } }];
    case "tool_call":
      return [
        {
          sessionUpdate: "tool_call",
          toolCallId: event.toolCallId,
          title: event.title,
          kind: event.kind,
          status: event.status,
          rawInput: event.rawInput,
          ...(event.name !== undefined ? { _meta: { [TOOL_META_KEY]: { tool: event.name } } } : {}),
        },
      ];
    case "tool_call_update": {
      const text = event.outputDelta ?? event.result;
      return [
        {
          sessionUpdate: "tool_call_update",
          toolCallId: event.toolCallId,
          ...(event.status ? { status: event.status } : {}),
          ...(text !== undefined ? { content: [{ type: "content", content: { type: "text", text } }] } : {}),
          ...(event.result !== undefined ? { rawOutput: { output: event.result } } : {}),
        },
      ];
    }
    case "usage": {
      const meta =
        event.tokens || event.session
          ? {
              _meta: {
                [USAGE_META_KEY]: {
                  ...(event.tokens ? { tokens: event.tokens } : {}),
                  ...(event.session ? { session: event.session } : {}),
                },
              },
            }
          : {};
      const cost = event.costUsd !== undefined ? { cost: { amount: event.costUsd, currency: "USD" } } : {};
      return [{ sessionUpdate: "usage_update", used: event.used, size: event.size, ...cost, ...meta }];
    }
    case "plan":
      return [{ sessionUpdate: "plan", entries: event.entries }];
    case "compaction":
      return client.compaction ? compactionUpdates(event) : compactionThought(event);
    default:
      return [];
  }
}

type CompactionEvent = Extract<WorkerEvent, { type: "compaction" }>;

function compactionUpdates(event: CompactionEvent): SessionUpdate[] {
  const { compactionId, status } = event;
  switch (status) {
    case "completed":
      return [
        ...(event.summary
          ? [
              {
                sessionUpdate: "compaction_summary_chunk" as const,
                compactionId,
                content: { type: "text" as const, text: event.summary },
              },
            ]
          : []),
        { sessionUpdate: "compaction_update", compactionId, status },
      ];
    case "failed":
      return [{ sessionUpdate: "compaction_update", compactionId, status, error: event.error ?? null }];
    default:
      return [{ sessionUpdate: "compaction_update", compactionId, status }];
  }
}

/** What a client without compaction updates is shown, as before they existed: the notice of a completed one. */
function compactionThought(event: CompactionEvent): SessionUpdate[] {
  if (event.status !== "completed" || !event.notice) return [];
  return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.notice } }];
}
