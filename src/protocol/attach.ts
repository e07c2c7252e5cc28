// Several clients on one live session (unstable: the drafts "Multi-Client Session Attach", PR #533, and "Remote:
// multi-client sessions" are not settled). Every name this host gives that extension is here, so a rename in the spec
// is a change of this file. Shared by the host (which answers) and the client library (which asks).
import { z } from "zod";

export const ATTACH_METHOD = "session/attach";
export const DETACH_METHOD = "session/detach";
/** Host → client: an attachment ended without its client asking (it fell too far behind). */
export const DETACHED_NOTIFICATION = "_host/detached";
/** Host → attached clients: the session's turn ended (a controller whose connection dropped learns its answer). */
export const TURN_ENDED_NOTIFICATION = "_host/turn_ended";
/** `_meta` key of every session/update: the update's event id (src/protocol/event-id.ts). */
export const EVENT_ID_META_KEY = "eventId";
/**
 * `_meta` key of a session/prompt: the client's own id for the prompt, which the attach answer and the turn's end
 * notice repeat, so a client whose connection dropped knows whether the host got its prompt and how it ended.
 */
export const PROMPT_ID_META_KEY = "acp-session-host/promptId";

export const AttachRole = z.enum(["observer", "controller"]);
export type AttachRole = z.infer<typeof AttachRole>;

export const ReplayFrom = z.discriminatedUnion("type", [
  z.object({ type: z.literal("start") }),
  z.object({ type: z.literal("after_event"), eventId: z.string().min(1) }),
]);
export type ReplayFrom = z.infer<typeof ReplayFrom>;

export const AttachRequest = z.object({
  sessionId: z.string(),
  role: AttachRole,
  /** Absent: live updates from now on only. */
  replayFrom: ReplayFrom.optional(),
  _meta: z.record(z.string(), z.unknown()).nullish(),
});
export type AttachRequest = z.infer<typeof AttachRequest>;

export const Participant = z.object({ attachmentId: z.string(), role: AttachRole });
/** An attach answer names this many participants at most (the attaching client first): the rest are only counted. */
export const PARTICIPANTS_PAGE = 16;
export type Participant = z.infer<typeof Participant>;

export const AttachResponse = z.object({
  /** The host that answered (--host-id): a client whose connection dropped tells a restarted or other host by it. */
  hostId: z.string(),
  attachmentId: z.string(),
  role: AttachRole,
  /** The id of the last update the session has shown (null: none yet); replay ends there, live goes on after it. */
  lastEventId: z.string().nullable(),
  /** Who is attached, this client first (no personal data: ids and roles): PARTICIPANTS_PAGE of them at most. */
  participants: z.array(Participant),
  /** How many clients are attached in all, this one included (absent from a host before the page). */
  participantCount: z.number().int().nonnegative().optional(),
  /** Whether a turn is running: its end reaches every attached client (TURN_ENDED_NOTIFICATION). */
  turnRunning: z.boolean(),
  /** How the session's last turn in this host ended ("error": it failed); null: none yet. */
  lastStopReason: z.string().nullable(),
  /** The client's id of the running turn's prompt, else of the last turn's (PROMPT_ID_META_KEY); null: none given. */
  promptId: z.string().nullable(),
  /** Its mode and model now (absent where the answering host does not serve the session: a fleet observer's). */
  mode: z.string().optional(),
  model: z.string().optional(),
});
export type AttachResponse = z.infer<typeof AttachResponse>;

export const DetachRequest = z.object({ sessionId: z.string(), attachmentId: z.string() });
export type DetachRequest = z.infer<typeof DetachRequest>;

export const DetachedNotification = z.object({
  sessionId: z.string(),
  attachmentId: z.string(),
  error: z.object({
    code: z.number(),
    message: z.string(),
    data: z.object({ reason: z.string(), lastEventId: z.string().nullable() }).passthrough(),
  }),
});
export type DetachedNotification = z.infer<typeof DetachedNotification>;

export const TurnEndedNotification = z.object({
  sessionId: z.string(),
  stopReason: z.string(),
  /** The last update the turn showed (null: none). */
  lastEventId: z.string().nullable(),
  /** The client's id of the turn's prompt (null: none given). */
  promptId: z.string().nullable(),
});
export type TurnEndedNotification = z.infer<typeof TurnEndedNotification>;
