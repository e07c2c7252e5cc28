// Regression (found by the escape catalogue's symlink race): a directory swapped for a symlink to outside between
// Workspace.resolve and the open. The open walks from the root without following symlinks, so it fails and
// nothing outside is created, truncated or read.
import { mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readText, writeText } from "../../workers/tools/file-io.js";
import { OutsideWorkspace, Workspace } from "../../workers/tools/workspace.js";
import { tempDir } from "../support/temp-dirs.js";

let base: string;

function setUp() {
  base = tempDir("ash-race-");
  const ws = join(base, "ws");
  const outside = join(base, "outside");
  mkdirSync(join(ws, "dir"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, "dir", "file"), "inside\n");
  writeFileSync(join(outside, "file"), "outside secret\n");
  const swap = () => {
    renameSync(join(ws, "dir"), join(ws, "dir.real"));
    symlinkSync(outside, join(ws, "dir"));
  };
  return { ws, outside, swap, workspace: new Workspace(ws) };
}

describe("file-io after a symlink swap", () => {
  it("a write to a new file is refused and creates nothing outside", async () => {
    const { outside, swap, workspace } = setUp();
    const target = await workspace.resolve("dir/new");
    swap();
    await expect(writeText(target, "x", true)).rejects.toBeInstanceOf(OutsideWorkspace);
    expect(readdirSync(outside)).toEqual(["file"]);
  });

  it("a write to an existing file is refused and truncates nothing outside", async () => {
    const { outside, swap, workspace } = setUp();
    const target = await workspace.resolve("dir/file");
    swap();
    await expect(writeText(target, "x")).rejects.toBeInstanceOf(OutsideWorkspace);
    expect(readFileSync(join(outside, "file"), "utf8")).toBe("outside secret\n");
  });

  it("a read is refused", async () => {
    const { swap, workspace } = setUp();
    const target = await workspace.resolve("dir/file");
    swap();
    await expect(readText(target)).rejects.toBeInstanceOf(OutsideWorkspace);
  });

  it("without a swap, the same calls work, missing directories included", async () => {
    const { ws, workspace } = setUp();
    expect(await readText(await workspace.resolve("dir/file"))).toBe("inside\n");
    expect(await writeText(await workspace.resolve("a/b/c.txt"), "made", true)).toBe(4);
    expect(readFileSync(join(ws, "a", "b", "c.txt"), "utf8")).toBe("made");
  });

  it("a path inside a hidden directory (the state dir, another session's workspace) is refused", async () => {
    const { ws } = setUp();
    mkdirSync(join(ws, "state"));
    const workspace = new Workspace(ws, [join(ws, "state"), base]);
    await expect(workspace.resolve("state/log")).rejects.toBeInstanceOf(OutsideWorkspace);
    expect((await workspace.resolve("dir/file")).exists).toBe(true);
  });
});
