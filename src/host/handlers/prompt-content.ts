// session/prompt content → the one user message the worker receives.
import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";
import { invalidParams } from "../../request-errors.js";

/** Text blocks are concatenated; a resource_link becomes "[resource_link name=… uri=…]". Anything else is refused. */
export function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const [index, block] of blocks.entries()) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        parts.push(`[resource_link name=${block.name} uri=${block.uri}]`);
        break;
      default:
        throw invalidParams(
          `prompt[${index}].type`,
          `prompt content of type "${block.type}" is not supported by this host (it advertises text and resource_link only)`,
        );
    }
  }
  const text = parts.join("");
  if (text.trim().length === 0) throw invalidParams("prompt", "prompt is empty");
  return text;
}
