// One entry of the conversation. Every string is a text child (a text node): nothing a model, a tool or a user wrote
// becomes markup, and nothing in it becomes a link. Long tool output is folded.
import type { Entry } from "../state/transcript";

const FOLD_LINES = 12;
const FOLD_CHARS = 2000;

function Folded(props: { label: string; text: string }) {
  const lines = props.text.split("\n").length;
  if (lines <= FOLD_LINES && props.text.length <= FOLD_CHARS) return <pre class={props.label}>{props.text}</pre>;
  return (
    <details class="folded">
      <summary>
        {props.label}: {lines} lines, {props.text.length} characters
      </summary>
      <pre class={props.label}>{props.text}</pre>
    </details>
  );
}

export function EntryView(props: { entry: Entry }) {
  const entry = props.entry;
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
        <span class="badge">{entry.toolKind}</span> <span class="tool-title">{entry.title}</span>{" "}
        <span class="tool-status">{entry.status}</span>
      </div>
      {entry.input !== "" && <Folded label="input" text={entry.input} />}
      {entry.output !== "" && <Folded label="output" text={entry.output} />}
    </div>
  );
}
