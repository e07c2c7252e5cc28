// The README's example, run as written: the code block under its marker, saved as a module of a project that has this
// checkout installed as `acp-session-host`, run by node with a state dir of the test's own. It spawns the host, runs
// three sessions on the scripted model, and prints what each did.
import { execFile } from "node:child_process";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { tempDir } from "../support/host.js";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MARKER = "<!-- README example: test/cli/readme-example.test.ts runs this block as written -->";

it("the README's example runs as written and shows each session's tools", async () => {
  const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
  const block = /```js\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf(MARKER)));
  expect(readme.includes(MARKER) && block).toBeTruthy();
  const project = tempDir();
  await mkdir(join(project, "node_modules"));
  await symlink(REPO_ROOT, join(project, "node_modules", "acp-session-host"));
  await writeFile(join(project, "example.mjs"), block![1]!);
  const state = tempDir();
  const { stdout } = await promisify(execFile)(process.execPath, ["example.mjs"], {
    cwd: project,
    env: { ...process.env, XDG_STATE_HOME: state },
  });
  const summaries = stdout.split("\n").filter((line) => line.startsWith("end_turn"));
  expect(summaries).toEqual(Array(3).fill("end_turn Write notes.md (completed), ls && wc -l notes.md (completed)"));
  expect(stdout.match(/^2 notes\.md$/gm)).toHaveLength(3);
  // Its logs went where the README says: the state dir's acp-session-host folder.
  expect((await readdir(join(state, "acp-session-host"))).length).toBeGreaterThan(0);
});
