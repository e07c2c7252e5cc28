// How much of a session the live view replays before it goes live: its last N turns (as `watch --turns N`), or all
// of it from the start.
export type ReplayTurns = number | "all";

/** The default, like a terminal's scrollback: enough to see where the session is, not its whole history. */
export const DEFAULT_REPLAY_TURNS: ReplayTurns = 10;
const CHOICES: readonly ReplayTurns[] = [1, 10, 50, "all"];

export function ReplayChoice(props: { turns: ReplayTurns; onChange: (turns: ReplayTurns) => void }) {
  return (
    <select
      id="replay-turns"
      title="What the view replays before it goes live"
      value={String(props.turns)}
      onChange={(event) => {
        const value = event.currentTarget.value;
        props.onChange(value === "all" ? "all" : Number(value));
      }}
    >
      {CHOICES.map((turns) => (
        <option value={String(turns)} key={turns}>
          {turns === "all" ? "from the start" : `last ${turns} turn${turns === 1 ? "" : "s"}`}
        </option>
      ))}
    </select>
  );
}
