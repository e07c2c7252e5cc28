// Test support: temp dirs that the setup file (temp-dirs-cleanup.ts) removes once their test file is done.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dirs: string[] = [];

/** A fresh directory under `parent` (the system's temp dir unless named), removed after the test file. */
export function tempDir(prefix = "ash-", parent = tmpdir()): string {
  const dir = mkdtempSync(join(parent, prefix));
  dirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
