// What initialize advertises: each capability only where the host serves it (docs/protocol.md lists the same).
import type { AgentCapabilities } from "@agentclientprotocol/sdk/unstable";

/** Not in the SDK's schema yet: session/attach and session/detach (docs/protocol.md), observers and controllers. */
const UNSTABLE_SESSION_CAPABILITIES: object = { attach: {} };

export const AGENT_CAPABILITIES = {
  loadSession: true,
  sessionCapabilities: {
    list: {},
    resume: {},
    close: {},
    delete: {},
    fork: {},
    status: {},
    title: {},
    archive: {},
    // append is every advertiser's; override replaces the host's own instructions.
    systemPrompt: { mode: { override: {} } },
    ...UNSTABLE_SESSION_CAPABILITIES,
  },
  // stdio servers are a must for every ACP agent; http is advertised, sse (deprecated) is not supported.
  mcpCapabilities: { http: true, sse: false },
  promptCapabilities: { image: false, audio: false, embeddedContext: false },
} satisfies AgentCapabilities;
