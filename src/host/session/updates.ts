// Worker events → ACP session/update payloads. The session id is added by the caller, from the port's owner.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { WorkerEvent } from "../../protocol/port.js";

/** usage_update's `_meta` key: { tokens: this response's {prompt, completion, cached}, session: the session's sums }. */
export const USAGE_META_KEY = "acp-session-host";

export function toSessionUpdates(event: WorkerEvent): SessionUpdate[] {
  switch (event.type) {
    case "assistant_message":
      return event.blocks
        .filter((block) => block.length > 0)
        .map((text) => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } }));
    case "thought":
      return event.text.length > 0 ? [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.text } }] : [];
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
      const meta = event.tokens || event.session ? { _meta: { [USAGE_META_KEY]: { ...(event.tokens ? { tokens: event.tokens } : {}), ...(event.session ? { session: event.session } : {}) } } } : {};
      return [{ sessionUpdate: "usage_update", used: event.used, size: event.size, ...meta }];
    }
    default:
      return [];
  }
}
