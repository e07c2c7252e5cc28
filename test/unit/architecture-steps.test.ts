// docs/architecture.md's "One prompt, step by step" stays true: every file it names exists, and every function it
// names (`Class.method`) is defined in one of the files the section names.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli-path.js";

const doc = readFileSync(join(REPO_ROOT, "docs", "architecture.md"), "utf8");
const section = doc.slice(doc.indexOf("## One prompt, step by step"));
const steps = section.split(/\n(?=\d+\. )/).slice(1);

/** A step's files: full paths as written, and bare names resolved against the folder last named before them. */
function filesOf(step: string): string[] {
  const files: string[] = [];
  let folder = "";
  for (const [, name] of step.matchAll(/`([\w./-]+\.(?:ts|json))`/g)) {
    if (name!.includes("/")) {
      files.push(name!);
      folder = name!.slice(0, name!.lastIndexOf("/") + 1);
    } else files.push(folder + name);
  }
  return files;
}

it("has its steps", () => {
  expect(steps.length).toBeGreaterThanOrEqual(10);
});

it("names files that exist", () => {
  const missing = steps.flatMap(filesOf).filter((file) => !existsSync(join(REPO_ROOT, file)));
  expect(missing).toEqual([]);
});

it("names functions defined in the files it names", () => {
  const sources = [...new Set(steps.flatMap(filesOf))]
    .map((file) => readFileSync(join(REPO_ROOT, file), "utf8"))
    .join("\n");
  const missing = [...section.matchAll(/`([A-Z]\w+)\.(#?\w+)`/g)]
    .map(([, , method]) => method!)
    .filter((method) => !new RegExp(`^\\s*(?:async )?${method.replace("#", "\\#")}\\(`, "m").test(sources));
  expect(missing).toEqual([]);
});
