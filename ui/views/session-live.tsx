// One session, live: attached as an observer, its history replayed (the last N turns of it shown, or all of it), its
// updates folded into the conversation as they come. Taking control re-attaches as a controller after the last update
// shown; a controller may cancel the turn, answer a permission, send a prompt and change the mode.
import { useEffect, useRef, useState } from "preact/hooks";
import { TURN_ENDED_NOTIFICATION } from "../../src/protocol/attach";
import { attach, cancel, detach, prompt, setMode, type AttachRole } from "../acp/host-api";
import type { HostConnection } from "../acp/host-connection";
import { Permissions } from "../state/permissions";
import { Transcript } from "../state/transcript";
import { EntryView } from "./entry-view";
import { PermissionView } from "./permission-view";
import { DEFAULT_REPLAY_TURNS, ReplayChoice, type ReplayTurns } from "./replay-choice";

const MODES = ["ask", "auto", "read-only"];
/** The User Timing name of an update's delay from its message's arrival to its render (read by the tests). */
export const UPDATE_MEASURE = "dashboard:update-shown";
/** Updates only a turn shows: one that arrives live says a turn runs (whoever prompted it). */
const TURN_UPDATES = new Set([
  "user_message_chunk",
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call",
  "tool_call_update",
  "plan",
]);

interface Attached {
  role: AttachRole;
  attachmentId: string;
}

/** What the attach answer said of the session: its mode and model then, how its last turn ended. */
interface Settings {
  mode: string | null;
  model: string | null;
  lastStopReason: string | null;
}

/** Entries of the conversation in the DOM at first; "Show earlier" adds as many again. */
const ENTRIES_WINDOW = 200;

/** The plan's entries as `watch` marks them: done, running, to do. */
const PLAN_MARK: Record<string, string> = { completed: "[x]", in_progress: "[>]", pending: "[ ]" };

export function SessionLive(props: { connection: HostConnection; sessionId: string }) {
  const { connection, sessionId } = props;
  const transcript = useRef(new Transcript());
  const [turns, setTurns] = useState<ReplayTurns>(DEFAULT_REPLAY_TURNS);
  // How many turns of the replay are not shown (turns: N).
  const [skipped, setSkipped] = useState(0);
  // The attachment being left when the view re-attaches (another choice of turns): the next attach waits for it.
  const leaving = useRef<Promise<unknown>>(Promise.resolve());
  const [version, setVersion] = useState(0);
  // When each update not yet shown arrived: once shown, the delay is a User Timing measure (UPDATE_MEASURE).
  const arrivals = useRef<number[]>([]);
  const redraw = () => setVersion((version) => version + 1);
  const permissions = useRef(new Permissions(redraw));
  const [attached, setAttachedState] = useState<Attached | null>(null);
  // What to detach when the view closes: the attachment of now, not of when the view opened.
  const attachedNow = useRef<Attached | null>(null);
  const setAttached = (next: Attached | null) => {
    attachedNow.current = next;
    setAttachedState(next);
  };
  const [turnRunning, setTurnRunning] = useState(false);
  // The newest entries only: a long session's whole history in the DOM froze the page for seconds.
  const [shownEntries, setShownEntries] = useState(ENTRIES_WINDOW);
  const [settings, setSettings] = useState<Settings>({ mode: null, model: null, lastStopReason: null });
  const learn = (answer: { mode?: string; model?: string; lastStopReason: string | null }) =>
    setSettings({ mode: answer.mode ?? null, model: answer.model ?? null, lastStopReason: answer.lastStopReason });
  const [error, setError] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  // The replay has all been sent when the attach's answer comes: what arrives after it is live.
  const live = useRef(false);

  useEffect(() => {
    transcript.current = new Transcript();
    live.current = false;
    setSkipped(0);
    setError(null);
    setAttached(null);
    redraw();
    // Updates of the attachment being left still arrive until its detach is answered: not this attachment's.
    let attaching = false;
    let left = false;
    const stopNotices = connection.onNotice((notice) => {
      if (!attaching || notice.params.sessionId !== sessionId) return;
      if (notice.method === "session/update") {
        const note = notice.params;
        const eventId = (note.update._meta?.["eventId"] ?? note._meta?.["eventId"] ?? null) as string | null;
        // A replayed update waits for the rest of the replay before it is shown: only live ones are measured.
        if (live.current) arrivals.current.push(performance.now());
        transcript.current.apply(note.update, eventId);
        if (live.current && TURN_UPDATES.has(note.update.sessionUpdate)) setTurnRunning(true);
        // The replay is shown at once when it has all come (its last turns only, when so chosen).
        if (live.current) redraw();
      } else if (notice.method === TURN_ENDED_NOTIFICATION) {
        setTurnRunning(false);
        const { stopReason } = notice.params;
        setSettings((now) => ({ ...now, lastStopReason: stopReason }));
      } else {
        setAttached(null);
        setError("The host detached this page from the session (it fell behind): open it again.");
      }
    });
    connection.answerPermissions((request, requestId, withdrawn) =>
      // Asked about a session this view does not show (it was left): no answer of the page's, the others decide.
      request.sessionId === sessionId
        ? permissions.current.ask(requestId, request, withdrawn)
        : Promise.resolve({ outcome: { outcome: "cancelled" } }),
    );
    void leaving.current
      .then(() => {
        attaching = true;
        return attach(connection, sessionId, "observer", null);
      })
      .then(
        (answer) => {
          // Left while attaching: this attachment is no longer wanted.
          if (left) {
            leaving.current = detach(connection, sessionId, answer.attachmentId).catch(() => {});
            return;
          }
          if (turns !== "all") setSkipped(transcript.current.keepLastTurns(turns));
          live.current = true;
          redraw();
          setAttached({ role: answer.role, attachmentId: answer.attachmentId });
          setTurnRunning(answer.turnRunning);
          learn(answer);
        },
        (failure: unknown) => setError((failure as Error).message),
      );
    return () => {
      left = true;
      stopNotices();
      const current = attachedNow.current;
      if (current && connection.open)
        leaving.current = detach(connection, sessionId, current.attachmentId).catch(() => {});
    };
  }, [connection, sessionId, turns]);

  useEffect(() => {
    for (const start of arrivals.current) performance.measure(UPDATE_MEASURE, { start });
    arrivals.current = [];
  }, [version]);

  const switchRole = async (role: AttachRole) => {
    if (!attached) return;
    try {
      live.current = false;
      await detach(connection, sessionId, attached.attachmentId);
      const answer = await attach(connection, sessionId, role, transcript.current.lastEventId);
      live.current = true;
      setAttached({ role: answer.role, attachmentId: answer.attachmentId });
      setTurnRunning(answer.turnRunning);
      learn(answer);
      setError(null);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  const send = async () => {
    const text = draft.trim();
    if (text === "") return;
    setDraft("");
    setTurnRunning(true);
    try {
      await prompt(connection, sessionId, text);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setTurnRunning(false);
    }
  };

  const t = transcript.current;
  const controller = attached?.role === "controller";
  // A mode changed since the attach is the transcript's (current_mode_update); else the one the attach answered.
  const mode = t.mode ?? settings.mode;
  const state =
    permissions.current.pending.length > 0
      ? "waiting"
      : turnRunning
        ? "running"
        : settings.lastStopReason === "error"
          ? "failed"
          : "idle";
  return (
    <section class="session-live" id="session-live">
      <h2>
        Session <code>{sessionId}</code>
      </h2>
      <div class="session-bar">
        <span id="attach-role" class="badge">
          {attached ? attached.role : "not attached"}
        </span>
        <span id="turn-state" class={`badge ${turnRunning ? "state-running" : "state-idle"}`}>
          {turnRunning ? "turn running" : "no turn running"}
        </span>
        <span id="session-state" class={`badge state state-${state}`}>
          {state === "waiting" ? "waiting for permission" : state}
        </span>
        <ReplayChoice turns={turns} onChange={setTurns} />
        {mode !== null && (
          <span class="badge" id="session-mode">
            mode {mode}
          </span>
        )}
        {settings.model !== null && (
          <span class="badge" id="session-model">
            model {settings.model}
          </span>
        )}
        {t.usage !== null && (
          <span class="badge" id="session-usage">
            {t.usage}
          </span>
        )}
        {t.spent !== null && (
          <span class="badge" id="session-spent">
            {t.spent}
          </span>
        )}
        {attached && !controller && (
          <button type="button" id="take-control" onClick={() => void switchRole("controller")}>
            Take control
          </button>
        )}
        {controller && (
          <>
            <button type="button" id="observe" onClick={() => void switchRole("observer")}>
              Observe only
            </button>
            <button
              type="button"
              id="cancel-turn"
              disabled={!turnRunning}
              onClick={() => cancel(connection, sessionId)}
            >
              Cancel turn
            </button>
            <select
              id="mode"
              title="The session's mode"
              value={mode ?? ""}
              onChange={(event) =>
                void setMode(connection, sessionId, event.currentTarget.value).catch((failure: unknown) =>
                  setError((failure as Error).message),
                )
              }
            >
              {mode === null && (
                <option value="" disabled>
                  mode
                </option>
              )}
              {MODES.map((name) => (
                <option value={name} key={name}>
                  mode: {name}
                </option>
              ))}
            </select>
          </>
        )}
      </div>
      {error !== null && (
        <p class="error" id="session-error">
          {error}
        </p>
      )}
      {permissions.current.pending.map((pending) => (
        <PermissionView key={String(pending.requestId)} pending={pending} />
      ))}
      {t.plan.length > 0 && (
        <ol class="plan">
          {t.plan.map((item, index) => (
            <li key={index} class={`plan-${item.status}`}>
              <span class="plan-status" title={item.status}>
                {PLAN_MARK[item.status] ?? `[${item.status}]`}
              </span>{" "}
              {item.content}
            </li>
          ))}
        </ol>
      )}
      {skipped > 0 && (
        <p class="hint" id="skipped-turns">
          {skipped} earlier turn{skipped === 1 ? "" : "s"} not shown ("from the start" shows them)
        </p>
      )}
      {t.entries.length > shownEntries && (
        <button type="button" id="show-earlier" onClick={() => setShownEntries((now) => now + ENTRIES_WINDOW)}>
          Show {Math.min(ENTRIES_WINDOW, t.entries.length - shownEntries)} earlier of {t.entries.length - shownEntries}{" "}
          entries not shown
        </button>
      )}
      <div class="transcript" id="transcript">
        {t.entries.slice(-shownEntries).map((entry) => (
          <EntryView key={`${entry.kind}:${entry.id}`} entry={entry} />
        ))}
      </div>
      {controller && (
        <form
          class="prompt"
          onSubmit={(event) => {
            event.preventDefault();
            void send();
          }}
        >
          <textarea
            id="prompt"
            rows={3}
            value={draft}
            onInput={(event) => setDraft(event.currentTarget.value)}
            placeholder="Send a prompt"
          />
          <button type="submit" id="send" disabled={turnRunning}>
            Send
          </button>
        </form>
      )}
    </section>
  );
}
