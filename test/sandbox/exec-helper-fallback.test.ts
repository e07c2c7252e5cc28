// Where a sandbox has no perl, the bash exec helper runs its commands: the same protocol and the same promises (a
// bash and a process group per command, statuses, background tasks and their kill), seen through a real host whose
// commands' PATH holds bash but no perl.
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { descendants, isAlive, startHost, tempDir } from "../support/host.js";
import { bash, cmdline, firstProcess, resultOf, script, taskIdIn, tool } from "../support/tools.js";

it("runs commands through the bash helper when perl is not on the sandbox's PATH", async () => {
  const bin = join(tempDir("ash-bin-"), "bin");
  mkdirSync(bin);
  for (const program of ["bwrap", "bash", "sleep", "true"]) symlinkSync(`/usr/bin/${program}`, join(bin, program));
  // read-only: workspace-write gives the sandbox a /tmp of its own, which would hide this PATH.
  const host = await startHost(["--default-mode", "read-only"], "deny", { ...process.env, PATH: bin });
  try {
    const { sessionId } = await host.client.newSession(tempDir());
    const status = await host.client.prompt(sessionId, script(bash("command -v perl || echo no perl; exit 3")));
    expect(resultOf(status.toolCalls[0])).toContain("no perl\n[exit code 3]");

    const started = await host.client.prompt(sessionId, script(bash("exec sleep 3011", { run_in_background: true })));
    const pid = await firstProcess(host.pid, "sleep 3011");
    const helpers = descendants(host.pid)
      .map(cmdline)
      .filter((line) => line.split(" ").includes("exec-helper") && !line.startsWith(bin));
    // the helper, and the wrapper subshell it forked to watch the task
    expect(helpers.length).toBeGreaterThan(0);
    for (const line of helpers) expect(line).toMatch(/^bash --norc -c /);
    await host.client.prompt(
      sessionId,
      script(tool("bash_kill", { task_id: taskIdIn(resultOf(started.toolCalls[0])) })),
    );
    expect(isAlive(pid)).toBe(false);
  } finally {
    await host.dispose();
  }
});
