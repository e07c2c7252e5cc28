// Nothing a user can pass goes undocumented: every flag the CLI's --help lists (the host's, run's, demo's, the
// bench's) is named in the README or under docs/.
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { CLI, REPO_ROOT } from "../support/cli-path.js";

const run = promisify(execFile);
const BENCH = join(REPO_ROOT, "dist/bench/run.js");

async function helpFlags(args: string[]): Promise<string[]> {
  const { stdout } = await run(process.execPath, args);
  return [...stdout.matchAll(/^ {2}(--[a-z][a-z-]*)/gm)].map((match) => match[1]!);
}

async function docsText(): Promise<string> {
  const pages = (await readdir(join(REPO_ROOT, "docs")))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(REPO_ROOT, "docs", name));
  const texts = await Promise.all([join(REPO_ROOT, "README.md"), ...pages].map((path) => readFile(path, "utf8")));
  return texts.join("\n");
}

it.each([
  ["the host", [CLI, "--help"]],
  ["run", [CLI, "run", "--help"]],
  ["demo", [CLI, "demo", "--help"]],
  ["the bench", [BENCH, "--help"]],
])("every flag of %s's --help is in the docs", async (_name, args) => {
  const flags = await helpFlags(args);
  expect(flags.length).toBeGreaterThan(0);
  const docs = await docsText();
  const undocumented = flags.filter((flag) => !new RegExp(`(^|[^a-z-])${flag}([^a-z-]|$)`, "m").test(docs));
  expect(undocumented).toEqual([]);
});
