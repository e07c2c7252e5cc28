// The demo's own checks fail a session that did not do its task (so a demo that passes means something).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkCalls, checkTask } from "../../src/run/demo/demo-tasks.js";
import { tempDir } from "../support/temp-dirs.js";

const root = tempDir("ash-demo-checks-");

describe("demo checks", () => {
  it("fail a project whose build still subtracts, and pass it once fixed", () => {
    const workspace = join(root, "project-calc");
    mkdirSync(join(workspace, "dist"), { recursive: true });
    writeFileSync(join(workspace, "NOTES.md"), "TODO: x\n");
    writeFileSync(join(workspace, "dist/calc.mjs"), "export function add(a, b) {\n  return a - b;\n}\n");
    expect(checkTask({ name: "project-calc", kind: "project" }, workspace, workspace)).toBe(
      "the built add() still subtracts",
    );
    writeFileSync(join(workspace, "dist/calc.mjs"), "export function add(a, b) {\n  return a + b;\n}\n");
    expect(checkTask({ name: "project-calc", kind: "project" }, workspace, workspace)).toBeNull();
  });

  it("fail a neighbour read that was not refused, and a read-only session whose writes went through", () => {
    expect(
      checkCalls({ name: "neighbour", kind: "neighbour" }, [
        { title: "cat", status: "completed" },
        { title: "read", status: "failed" },
      ]),
    ).toMatch(/not refused/);
    expect(
      checkCalls({ name: "neighbour", kind: "neighbour" }, [
        { title: "cat", status: "failed" },
        { title: "read", status: "failed" },
      ]),
    ).toBeNull();
    expect(checkCalls({ name: "read-only", kind: "read-only" }, [{ title: "write", status: "completed" }])).toBe(
      "no write was refused",
    );
  });
});
