// How each session mode treats each class of tool. ask: every command and every file write asks the client first,
// reads do not; auto: no questions; read-only: writes refused, commands in the read-only sandbox; full-access: no
// questions and no sandbox (offered only by a host started with --allow-full-access).
import type { SessionModeId } from "../../src/protocol/port.js";
import type { SandboxKind } from "../../src/protocol/spawner-requests.js";
import type { ToolPolicy } from "./tool.js";

export function readPolicy(): ToolPolicy {
  return { decision: "allow" };
}

export function commandPolicy(mode: SessionModeId): ToolPolicy {
  return mode === "ask" ? { decision: "ask" } : { decision: "allow" };
}

export function writePolicy(tool: string): (mode: SessionModeId) => ToolPolicy {
  return (mode) => {
    if (mode === "read-only")
      return { decision: "refuse", reason: `${tool} is refused in read-only mode: this session may not change files` };
    return mode === "ask" ? { decision: "ask" } : { decision: "allow" };
  };
}

export function sandboxFor(mode: SessionModeId): SandboxKind {
  switch (mode) {
    case "read-only":
      return "read-only";
    case "full-access":
      return "none";
    default:
      return "workspace-write";
  }
}
