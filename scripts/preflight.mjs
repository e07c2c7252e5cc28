// The start of `npm test`: is every part the suite runs for real here? One line per missing part with the command
// that installs it, and a non-zero exit, rather than dozens of tests failing far from the cause. scripts/setup
// installs the same parts; keep the two lists alike.
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";

/** The first executable `name` on PATH, or null. */
function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
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
function notOnPath(name, pkg) {
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

function bwrap() {
  const path = onPath("bwrap");
  if (!path) return notOnPath("bwrap", "bubblewrap");
  // The namespaces the sandbox's strictest plan makes (src/spawner/sandbox.ts): a bwrap that cannot is as good as none.
  const args = [
    "--die-with-parent",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
    "--unshare-net",
  ];
  const probe = spawnSync(path, [...args, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"], {
    encoding: "utf8",
    timeout: 10_000,
  });
  if (probe.status === 0) return null;
  const why = probe.error?.message ?? (probe.stderr.trim() || `exit ${probe.status}`);
  return {
    text: `bwrap at ${path} cannot make a sandbox here (${why}); it needs user namespaces (a privileged container, or kernel.unprivileged_userns_clone=1)`,
    installs: false,
  };
}

function postgres() {
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

const problems = [
  bwrap(),
  notOnPath("haproxy", "haproxy"),
  postgres(),
  notOnPath("openssl", "openssl"),
  notOnPath("ps", "procps"),
].filter((problem) => problem !== null);
if (problems.length > 0) {
  console.error("npm test: this machine lacks what the tests run for real:");
  for (const problem of problems) console.error(`  ${problem.text}`);
  if (problems.some((problem) => problem.installs))
    console.error("  all that is missing at once, as root: scripts/setup");
  process.exit(1);
}
