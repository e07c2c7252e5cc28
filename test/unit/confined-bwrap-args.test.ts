// A confined sandbox's bubblewrap arguments: the system's directories instead of the host's root, the workspace, a
// /tmp of its own, and /dev/null over each masked file.
import { expect, it } from "vitest";
import { bwrapArgs, type SandboxPlan } from "../../src/spawner/sandbox.js";

const plan = (kind: SandboxPlan["kind"]): SandboxPlan => ({
  kind,
  privateTmp: false,
  workspace: "/srv/a",
  network: false,
  masks: ["/srv/a/state"],
  fileMasks: ["/etc/shadow"],
  system: [
    { path: "/usr", kind: "dir" },
    { path: "/bin", kind: "symlink", target: "usr/bin" },
  ],
});

/** The arguments as [option, …operands] groups, in order. */
function groups(args: string[]): string[] {
  return args
    .join(" ")
    .split(" --")
    .map((group) => group.replace(/^-*/, "--"));
}

it("binds the system read-only, the workspace by mode, a private /tmp, and masks files with /dev/null", () => {
  const write = groups(bwrapArgs(plan("workspace-write"), ["true"]));
  expect(write).not.toContain("--ro-bind / /");
  expect(write).toEqual(
    expect.arrayContaining([
      "--ro-bind /usr /usr",
      "--symlink usr/bin /bin",
      "--tmpfs /tmp",
      "--bind /srv/a /srv/a",
      "--tmpfs /srv/a/state",
      "--ro-bind /dev/null /etc/shadow",
      "--setenv HOME /tmp",
    ]),
  );
  const read = groups(bwrapArgs(plan("read-only"), ["true"]));
  expect(read).toEqual(expect.arrayContaining(["--ro-bind /srv/a /srv/a", "--remount-ro /tmp"]));
  expect(read).not.toContain("--bind /srv/a /srv/a");
});
