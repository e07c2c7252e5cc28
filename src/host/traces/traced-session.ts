// What a turn's span names of its session.
import type { LiveSession } from "../session/session.js";
import type { TracedSession } from "./host-tracing.js";

export function tracedSession(session: LiveSession): TracedSession {
  return { id: session.id, tenant: session.tenant, mode: session.settings.mode, model: session.settings.model.model };
}
