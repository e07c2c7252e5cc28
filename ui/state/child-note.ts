// The child session a spawn_agent tool call ran, from the note the host's tool ends its output with
// (workers/tools/spawn-agent.ts). Only the output's last line is read, and only a session id is taken from it: the
// child's own message comes before it and may say anything.
const NOTE =
  /\[child session ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}), stop reason [a-z_]+; pass "session": "\1" to prompt it again\]$/;

export function childOfOutput(toolTitle: string, output: string): string | null {
  if (!toolTitle.startsWith("spawn_agent")) return null;
  return NOTE.exec(output.trimEnd())?.[1] ?? null;
}
