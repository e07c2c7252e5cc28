// The host fixes malloc's mmap threshold for itself where node:ffi lets it (Node 26 on glibc), and the warning
// node:ffi emits when loaded never reaches the stderr that carries the host's JSON; where it cannot, nothing is set
// and nothing is said.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const dist = (path: string) => fileURLToPath(new URL(`../../dist/${path}`, import.meta.url));

const probe = `
import { fixMallocThreshold } from ${JSON.stringify(dist("src/host/ops/malloc-threshold.js"))};
console.log(JSON.stringify({ fixed: fixMallocThreshold() }));
`;

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
/** node:ffi came with Node 26.1. */
const ffi = major > 26 || (major === 26 && minor >= 1);
const glibc = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime;

async function run(nodeArgs: string[] = []): Promise<{ fixed: boolean; stderr: string }> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [
    ...nodeArgs,
    "--input-type=module",
    "-e",
    probe,
  ]);
  return { fixed: (JSON.parse(stdout) as { fixed: boolean }).fixed, stderr };
}

it("is fixed where node:ffi and glibc's mallopt are there, without a line on stderr", async () => {
  expect(await run()).toEqual({ fixed: ffi && glibc !== undefined, stderr: "" });
});

it.runIf(ffi)("is left alone, silently, when node:ffi is turned off", async () => {
  expect(await run(["--no-experimental-ffi"])).toEqual({ fixed: false, stderr: "" });
});
