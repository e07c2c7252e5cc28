// The floor of the teardown scenario (issue 54): a process holding what a host with busy sessions holds, with none of
// the host around it, ended on SIGTERM the way the host's teardown ends it. It holds <threads> bare worker threads
// (bench/support/bare-thread.ts) and <processes> processes under it: <sandboxes> session sandboxes started as the
// spawner starts one (its bwrap arguments, its exec helper inside, `sleep 30` run through the helper), and plain
// `sleep 30` process groups for the rest of the count. Where bwrap cannot make a sandbox, every process is a plain
// group, and the ready line says so. On SIGTERM, all at once: every sandbox's namespace init is SIGKILLed (what
// SessionSandbox.end does: the namespace, and every process in it, ends with it), every plain group is SIGKILLed,
// every worker is terminated; once every child has been reaped and the runtime directory is gone, it exits 0.
// Prints `ready {json}` on stdout once everything is up.
// Usage: node dist/bench/processes/teardown-floor.js <threads> <processes> <sandboxes>
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { findBwrap } from "../../src/spawner/client/find-bwrap.js";
import { initPidOf, killSandbox } from "../../src/spawner/bwrap-init.js";
import { execHelperArgv, frameRun } from "../../src/spawner/exec-helper.js";
import { runtimeParent } from "../../src/spawner/runtime-parent.js";
import { bwrapArgs, commandEnv, probeSandbox, type SandboxPlan } from "../../src/spawner/sandbox.js";
import { startBareThread } from "../support/bare-thread.js";
import { descendants } from "../support/proc.js";

interface Sandbox {
  bwrap: ChildProcess;
  initPid: number | null;
}

/** A session's sandbox as SessionSandbox starts it, once its helper has reported the pid of `sleep 30`. */
async function startSandbox(bwrapPath: string, plan: SandboxPlan, execDir: string): Promise<Sandbox> {
  mkdirSync(execDir, { mode: 0o700 });
  const bwrap = spawn(bwrapPath, bwrapArgs(plan, execHelperArgv(execDir), { binds: [execDir], statusFd: true }), {
    cwd: plan.workspace,
    env: commandEnv(process.env),
    detached: true,
    stdio: ["pipe", "pipe", "ignore", "pipe"],
  });
  const sandbox: Sandbox = { bwrap, initPid: null };
  let status = "";
  (bwrap.stdio[3] as Readable).setEncoding("utf8").on("data", (text: string) => {
    status += text;
    sandbox.initPid ??= initPidOf(status);
  });
  await new Promise<void>((resolve, reject) => {
    let lines = "";
    let asked = false;
    bwrap.stdout!.setEncoding("utf8").on("data", (text: string) => {
      lines += text;
      if (!asked && lines.split("\n").includes("ready")) {
        asked = true;
        bwrap.stdin!.write(frameRun("floor", "sleep 30"));
      }
      if (/^pid floor \d+\n/m.test(lines)) resolve();
    });
    bwrap.once("error", reject);
    bwrap.once("exit", (code) => reject(new Error(`a sandbox ended before its command started (exit ${code})`)));
  });
  return sandbox;
}

function startSandboxes(bwrapPath: string, runtimeDir: string, count: number): Promise<Sandbox[]> {
  const workspace = realpathSync(process.cwd());
  // The host's plans mask the spawner's runtime directory, and bind each sandbox's exec directory over that mask.
  const plan: SandboxPlan = {
    kind: "workspace-write",
    privateTmp: true,
    workspace,
    network: false,
    masks: [runtimeDir],
  };
  return Promise.all(
    Array.from({ length: count }, (_, i) => startSandbox(bwrapPath, plan, join(runtimeDir, `exec-${i}`))),
  );
}

function startPlain(): ChildProcess {
  return spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
}

/** Waits until the count of processes under this one has not moved for a while (the helpers' spare bash). */
async function settledCount(): Promise<number> {
  let count = descendants(process.pid).length;
  for (let still = 0; still < 5;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = descendants(process.pid).length;
    still = now === count ? still + 1 : 0;
    count = now;
  }
  return count;
}

const args = process.argv.slice(2).map(Number);
const [threads = 0, processes = 0, wanted = 0] = args;
if (args.length !== 3 || !args.every((n) => Number.isInteger(n) && n >= 0))
  throw new Error("usage: teardown-floor <threads> <processes> <sandboxes>");

const bwrapPath = findBwrap("");
const sandboxStatus = wanted > 0 ? await probeSandbox(bwrapPath, "/") : { ok: false, detail: "none asked for" };
const sandboxed = sandboxStatus.ok ? bwrapPath : null;
const runtimeDir = sandboxed ? mkdtempSync(join(await runtimeParent(undefined), "ash-teardown-floor-")) : null;
const [workers, sandboxes] = await Promise.all([
  Promise.all(Array.from({ length: threads }, startBareThread)),
  sandboxed && runtimeDir ? startSandboxes(sandboxed, runtimeDir, wanted) : Promise.resolve([]),
]);
const plain = Array.from({ length: Math.max(0, processes - (await settledCount())) }, startPlain);
await Promise.all(plain.map((child) => once(child, "spawn")));

const children = [...sandboxes.map((s) => s.bwrap), ...plain];
const reaped = children.map((child) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, "exit"),
);
// Held until SIGTERM even when there is nothing to hold (no thread, no child).
setInterval(() => {}, 1 << 30);
process.once("SIGTERM", () => {
  for (const sandbox of sandboxes) killSandbox(sandbox.bwrap, sandbox.initPid);
  for (const child of plain) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // ESRCH: already gone
    }
  }
  void Promise.all([...workers.map((worker) => worker.terminate()), ...reaped]).then(() => {
    if (runtimeDir) rmSync(runtimeDir, { recursive: true, force: true });
    process.exit(0);
  });
});
const ready = {
  threads: workers.length,
  sandboxes: sandboxes.length,
  plain: plain.length,
  processes: descendants(process.pid).length,
  // Why every process is a plain group, if they are.
  plainOnly: sandboxes.length > 0 ? null : wanted > 0 ? sandboxStatus.detail : "the host ran no sandbox",
};
process.stdout.write(`ready ${JSON.stringify(ready)}\n`);
