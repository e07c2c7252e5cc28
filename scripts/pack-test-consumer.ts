// The program scripts/pack-test type-checks and runs in a fresh project that installed the packed tarball: what an
// orchestrator writes against the package's own types. It spawns the packed host, runs one prompt on the embedded
// scripted model (a bash command in the sandbox, then an answer) and checks what came back.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HostClient, type PromptResult, type ToolCallSummary } from "acp-session-host";

const workspace = mkdtempSync(join(tmpdir(), "ash-pack-test-"));
const host = await HostClient.spawn({
  hostArgs: ["--state-dir", join(workspace, ".state"), "--default-mode", "auto", "--log-level", "warn"],
  permission: "allow",
  stderr: "inherit",
});
try {
  const { sessionId } = await host.newSession(workspace);
  const steps = [{ tool: "bash", input: { command: "echo packed-$((6 * 7))" } }, { say: "ran it" }];
  const turn: PromptResult = await host.prompt(sessionId, `/script ${JSON.stringify(steps)}`, {
    signal: AbortSignal.timeout(120_000),
  });
  const bash: ToolCallSummary | undefined = turn.toolCalls[0];
  const output = `${bash?.output ?? ""} ${JSON.stringify(bash?.rawOutput ?? null)}`;
  if (turn.stopReason !== "end_turn" || bash?.status !== "completed" || !output.includes("packed-42"))
    throw new Error(`unexpected turn: ${JSON.stringify({ stopReason: turn.stopReason, bash, text: turn.text })}`);
  console.log(`consumer: ${turn.stopReason}, bash said ${JSON.stringify(output.match(/packed-\d+/)?.[0])}`);
} finally {
  await host.dispose();
  rmSync(workspace, { recursive: true, force: true });
}
