// Vitest global setup: every host a test starts without --state-dir (the run command, raw hosts) keeps its session
// logs in a temp state dir for this run, never in the user's ~/.local/state.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "ash-test-xdg-state-"));
  process.env.XDG_STATE_HOME = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
