// A confined sandbox masks only what it would show: hidden paths in the workspace or under a system directory,
// never one that holds the workspace, and nothing elsewhere (it is not there at all).
import { expect, it } from "vitest";
import { masksFor } from "../../src/spawner/sandbox.js";
import type { SystemEntry } from "../../src/spawner/system-view.js";

const system: SystemEntry[] = [
  { path: "/usr", kind: "dir" },
  { path: "/etc", kind: "dir" },
  { path: "/bin", kind: "symlink", target: "usr/bin" },
];

it("masks hidden paths inside the workspace or /etc, not the workspace's ancestors nor paths shown nowhere", () => {
  const others = ["/srv/a/state", "/etc/acp/tokens", "/srv", "/srv/a", "/srv/b", "/root", "/tmp/other", "/bin/x"];
  expect(masksFor(true, "/srv/a", others, system)).toEqual(["/etc/acp/tokens", "/srv/a/state"]);
  // Unconfined, the host's whole root is shown: everything but the workspace's own path is masked.
  expect(masksFor(true, "/srv/a", others)).toEqual(["/bin/x", "/etc/acp/tokens", "/root", "/srv/a/state", "/srv/b"]);
});
