// How a command is confined: the bubblewrap arguments of a session's sandbox (sandboxed kinds), plain bash for
// full-access, and the masks that keep other sessions' workspaces out of sight.
import { spawn } from "node:child_process";
import type { SandboxStatus } from "../protocol/spawner-control.js";
import type { SandboxKind } from "../protocol/spawner-requests.js";
import { isInside } from "../protocol/paths.js";
import { systemArgs, type SystemEntry } from "./system-view.js";

export interface Launch {
  file: string;
  args: string[];
  /** Sandboxed launches report through bwrap's --json-status-fd 3 whether the program itself started. */
  statusFd: boolean;
}

export interface SandboxPlan {
  kind: Exclude<SandboxKind, "none">;
  /**
   * workspace-write: an empty /tmp of the sandbox's own (commands). false: the host's /tmp, read-only and masked like
   * the rest of the root (stdio programs: an MCP server's own files may lie under /tmp, as a checkout's node_modules do).
   */
  privateTmp: boolean;
  /** The session's workspace (real path). */
  workspace: string;
  network: boolean;
  /** Paths the command must not see (other sessions' workspaces, the spawner's own directory): empty tmpfs over them. */
  masks: readonly string[];
  /** Files the command must not read (a tokens file, /etc/shadow): /dev/null bound over them. */
  fileMasks?: readonly string[];
  /**
   * Confined (roots are configured): the sandbox's root is these system directories, the workspace and a /tmp of its
   * own, nothing else of the host's. Absent: the host's whole root, read-only.
   */
  system?: readonly SystemEntry[];
}

/**
 * Read-only root, fresh /dev and /proc, private pid/ipc/uts (and net unless allowed) namespaces, no capabilities
 * (the host may run as root, and a root with capabilities could remount / read-write). workspace-write adds a
 * private /tmp and binds the workspace read-write. `binds` are bound read-write over the masks (a mask made
 * read-only does not reach a bind below it). No --new-session: the spawner puts the sandbox in a session and
 * process group of its own with no terminal, and the whole group must be reachable by one kill().
 */
export function bwrapArgs(
  plan: SandboxPlan,
  argv: readonly string[],
  extra: { binds?: readonly string[]; statusFd?: boolean; asPid1?: boolean } = {},
): string[] {
  const args = [
    "--die-with-parent",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
  ];
  if (!plan.network) args.push("--unshare-net");
  if (plan.system) args.push(...systemArgs(plan.system));
  else args.push("--ro-bind", "/", "/");
  args.push("--dev", "/dev", "--proc", "/proc");
  const privateTmp = plan.system !== undefined || (plan.kind === "workspace-write" && plan.privateTmp);
  if (privateTmp) args.push("--tmpfs", "/tmp");
  if (plan.kind === "workspace-write") args.push("--bind", plan.workspace, plan.workspace);
  else if (plan.system) args.push("--ro-bind", plan.workspace, plan.workspace);
  for (const mask of plan.masks) args.push("--tmpfs", mask);
  for (const file of plan.fileMasks ?? []) args.push("--ro-bind", "/dev/null", file);
  for (const bind of extra.binds ?? []) args.push("--bind", bind, bind);
  if (plan.kind === "read-only") for (const mask of plan.masks) args.push("--remount-ro", mask);
  // Last: the mount points of the binds above may have been made in it.
  if (plan.system && plan.kind === "read-only") args.push("--remount-ro", "/tmp");
  if (plan.system) args.push("--setenv", "HOME", "/tmp");
  args.push("--chdir", plan.workspace);
  if (extra.statusFd ?? true) args.push("--json-status-fd", "3");
  if (extra.asPid1) args.push("--as-pid-1");
  args.push("--", ...argv);
  return args;
}

/**
 * bash -c with the command line untouched, its stderr on the same pipe as stdout, so combined output keeps the
 * order it was written in. Full-access commands only: sandboxed ones are started by the exec helper.
 */
export function directLaunch(command: string): Launch {
  return { file: "sh", args: ["-c", 'exec bash -c "$1" 2>&1', "sh", command], statusFd: false };
}

/** A program and its arguments, as they are (an MCP server's command line), under a bwrap of its own unless plan is null. */
export function launchArgv(bwrapPath: string | null, plan: SandboxPlan | null, argv: readonly string[]): Launch {
  const [file, ...args] = argv;
  if (!plan) return { file: file!, args, statusFd: false };
  if (!bwrapPath) throw new Error("bwrap path missing");
  return { file: bwrapPath, args: bwrapArgs(plan, argv), statusFd: true };
}

/**
 * Which of the other paths are visible inside this sandbox and must be masked: a path is visible when it lies in the
 * workspace, or (outside a private /tmp) anywhere but on the workspace's own path from the root; confined (`system`
 * given), only in the workspace or a system directory.
 */
export function masksFor(
  privateTmp: boolean,
  workspace: string,
  others: Iterable<string>,
  system?: readonly SystemEntry[],
): string[] {
  const masks = new Set<string>();
  for (const other of others) {
    if (other === workspace || isInside(other, workspace)) continue; // the workspace itself, or one of its ancestors
    const shown = system
      ? system.some((entry) => entry.kind === "dir" && isInside(entry.path, other))
      : !(privateTmp && isInside("/tmp", other));
    const visible = isInside(workspace, other) || shown;
    if (visible) masks.add(other);
  }
  return [...masks].sort();
}

/** The environment commands get: a small allowlist, so the host's secrets (API keys) never reach them. */
export function commandEnv(source: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
  ]) {
    if (source[name] !== undefined) env[name] = source[name];
  }
  env.PATH ??= "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  env.TERM = "dumb";
  // A bash whose stdin is a socket (node's pipes are socketpairs) and whose SHLVL is under 2 reads ~/.bashrc, the
  // host user's: not in a sandbox, and not on every command's start.
  env.SHLVL = "1";
  env.PAGER = "cat";
  env.GIT_PAGER = "cat";
  return env;
}

/** Runs `true` in the strictest sandbox once: does bwrap exist, and can it make namespaces on this machine? */
export function probeSandbox(
  bwrapPath: string | null,
  workspace: string,
  system?: readonly SystemEntry[],
): Promise<SandboxStatus> {
  if (!bwrapPath) return Promise.resolve({ ok: false, detail: "bubblewrap (bwrap) was not found on PATH" });
  const plan: SandboxPlan = {
    kind: "read-only",
    privateTmp: false,
    workspace,
    network: false,
    masks: [],
    ...(system ? { system } : {}),
  };
  return new Promise((resolve) => {
    let output = "";
    // No reaper init for one `true`: bwrap reaps the program itself, and nothing is left to pid 1 (bwrap-init.ts).
    const child = spawn(bwrapPath, bwrapArgs(plan, ["true"], { asPid1: true }), {
      stdio: ["ignore", "ignore", "pipe", "pipe"],
      env: commandEnv(process.env),
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    let status = "";
    (child.stdio[3] as NodeJS.ReadableStream).setEncoding("utf8");
    (child.stdio[3] as NodeJS.ReadableStream).on("data", (chunk: string) => (status += chunk));
    child.on("error", (error) =>
      resolve({ ok: false, detail: `bubblewrap at ${bwrapPath} cannot be started: ${error.message}` }),
    );
    child.on("close", (code) => {
      if (code === 0 && status.includes('"exit-code"'))
        resolve({ ok: true, detail: `bubblewrap at ${bwrapPath} works` });
      else
        resolve({
          ok: false,
          detail: `bubblewrap at ${bwrapPath} cannot make a sandbox here (exit ${code}): ${output.trim() || "no message"}`,
        });
    });
  });
}
