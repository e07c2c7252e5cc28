// Under the host's V8 flags a large object's page goes back to the system once the object is collected, as on
// Node 20: V8 14 (Node 26) would otherwise keep it in its large-page pool until some isolate ends.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const dist = (path: string) => fileURLToPath(new URL(`../../dist/${path}`, import.meta.url));

// RSS (MiB) before an 8 MiB string that dies young (a flat string, joined: one large object), and the least it comes
// to within a few seconds of the collection that took it (Node 20 unmaps collected pages on a thread of its own, a
// moment later).
const probe = `
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { tuneIsolates } from ${JSON.stringify(dist("src/pool/isolate-flags.js"))};
tuneIsolates();
const rss = () => Number(/^VmRSS:\\s+(\\d+)/m.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
globalThis.gc();
const before = rss();
let text = "x".repeat(8 * 2 ** 20).split("").join("");
text = "";
globalThis.gc();
let after = rss();
for (let i = 0; i < 50 && after - before > 2; i++) {
  await sleep(100);
  after = Math.min(after, rss());
}
console.log(JSON.stringify({ before, after }));
`;

it("gives a collected large object's page back", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--expose-gc", "--input-type=module", "-e", probe]);
  const { before, after } = JSON.parse(stdout) as { before: number; after: number };
  expect(after - before).toBeLessThan(4);
});
