// What this package needs from the machine besides Node.js, checked before anything starts: one line per missing part,
// with the command that installs it. The demo checks the sandbox before it starts a session (a host without
// bubblewrap would fail every command far from the cause); scripts/preflight.mjs, the start of `npm test`, checks
// every part the suite runs for real. scripts/setup installs the same parts.
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";
import { bwrapArgs } from "../spawner/sandbox.js";

export interface MissingPart {
  text: string;
  /** apt-get install would bring it (not so for a part that is there but unusable, or off PATH). */
  installs: boolean;
}

/** The first executable `name` on PATH, or null. */
export function onPath(name: string, path = process.env.PATH ?? ""): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir.length === 0) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}

/** Why `name` cannot be run by name: absent, or installed in an sbin that this PATH lacks. */
export function notOnPath(name: string, pkg: string): MissingPart | null {
  if (onPath(name)) return null;
  const elsewhere = ["/usr/sbin", "/sbin", "/usr/local/sbin"]
    .map((dir) => join(dir, name))
    .find((path) => existsSync(path));
  if (elsewhere)
    return {
      text: `${name} is at ${elsewhere}, which is not on PATH; add ${elsewhere.slice(0, -name.length - 1)} to PATH`,
      installs: false,
    };
  return { text: `${name} not found; install: apt-get install -y ${pkg}`, installs: true };
}

/** bubblewrap on PATH, and able to make the namespaces of the sandbox's strictest plan (src/spawner/sandbox.ts). */
export function sandboxProblem(): MissingPart | null {
  const path = onPath("bwrap");
  if (!path) return notOnPath("bwrap", "bubblewrap");
  // The read-only plan's arguments as the spawner builds them, its strictest: no network, no capabilities.
  const plan = { kind: "read-only", privateTmp: false, workspace: "/", network: false, masks: [] } as const;
  const probe = spawnSync(path, bwrapArgs(plan, ["true"], { statusFd: false, asPid1: true }), {
    encoding: "utf8",
    timeout: 10_000,
  });
  if (probe.status === 0) return null;
  const why = probe.error?.message ?? (probe.stderr.trim() || `exit ${probe.status}`);
  return {
    text: `bwrap at ${path} cannot make a sandbox here (${why}); it needs user namespaces (kernel.unprivileged_userns_clone=1, or in a container what deploy/container.md says)`,
    installs: false,
  };
}

/** PostgreSQL's initdb and postgres, under Debian's versioned directories or on PATH. */
export function postgresProblem(): MissingPart | null {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root) : [];
  const complete = versions.some((version) =>
    ["initdb", "postgres"].every((name) => existsSync(join(root, version, "bin", name))),
  );
  if (complete || (onPath("initdb") && onPath("postgres"))) return null;
  return {
    text: `PostgreSQL's initdb and postgres not found under ${root}/*/bin or on PATH; install: apt-get install -y postgresql`,
    installs: true,
  };
}
