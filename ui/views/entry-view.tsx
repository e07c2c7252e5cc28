// One entry of the conversation. Every string is a text child (a text node): nothing a model, a tool or a user wrote
// becomes markup, and nothing in it becomes a link; the only links are the page's own, to a child session's live view.
// Long tool output is folded, and put in the page only once opened (its end first).
import { useMemo, useState } from "preact/hooks";
import { sessionHref } from "../state/route";
import type { Entry } from "../state/transcript";

const FOLD_LINES = 12;
const FOLD_CHARS = 2000;
/** Of a folded text opened, this much of its end is put in the page at first. */
const SHOWN_CHARS = 64 * 1024;

function Folded(props: { label: string; text: string }) {
  const [open, setOpen] = useState(false);
  const [whole, setWhole] = useState(false);
  const lines = useMemo(() => lineCount(props.text), [props.text]);
  if (lines <= FOLD_LINES && props.text.length <= FOLD_CHARS) return <pre class={props.label}>{props.text}</pre>;
  // Put in the page only once opened, and then its last SHOWN_CHARS unless asked for all: megabytes of output in the
  // DOM froze the page.
  const cut = !whole && props.text.length > SHOWN_CHARS;
  return (
    <details class="folded" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        {props.label}: {lines} lines, {props.text.length} characters
      </summary>
      {open && cut && (
        <button type="button" class="show-all" onClick={() => setWhole(true)}>
          Show the {props.text.length - SHOWN_CHARS} characters before these
        </button>
      )}
      {open && <pre class={props.label}>{cut ? props.text.slice(-SHOWN_CHARS) : props.text}</pre>}
    </details>
  );
}

function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}

function ChildLink(props: { sessionId: string; label: string }) {
  return (
    <a class="child-link" href={sessionHref(props.sessionId)} data-child-session-id={props.sessionId}>
      {props.label}
    </a>
  );
}

export function EntryView(props: { entry: Entry }) {
  const entry = props.entry;
  if (entry.kind === "child")
    return (
      <div class="child-session" data-session-id={entry.id}>
        <span class="badge">child session</span> <ChildLink sessionId={entry.id} label={entry.title || entry.id} />{" "}
        <span class="tool-status">{entry.state}</span>
      </div>
    );
  if (entry.kind !== "tool")
    return (
      <div class={`message message-${entry.kind}`}>
        <span class="who">{entry.kind === "user" ? "user" : entry.kind === "agent" ? "agent" : "thinking"}</span>
        <div class="text">{entry.text}</div>
      </div>
    );
  return (
    <div class={`tool-call status-${entry.status}`} data-tool-call-id={entry.id}>
      <div class="tool-head">
        <span class="badge tool-name">{entry.label}</span> <span class="tool-title">{entry.title}</span>{" "}
        <span class="tool-status">{entry.status}</span>
      </div>
      {entry.input !== "" && <Folded label="input" text={entry.input} />}
      {entry.output !== "" && <Folded label="output" text={entry.output} />}
      {entry.childSessionId !== null && (
        <ChildLink sessionId={entry.childSessionId} label={`open child session ${entry.childSessionId.slice(0, 8)}`} />
      )}
    </div>
  );
}
