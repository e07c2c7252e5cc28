// One teardown of busy sessions with the host's debug log: what each teardown phase took (bench/scenarios/teardown.ts
// times the whole). Usage: node dist/bench/processes/teardown-probe.js <sessions> SIGTERM|stdin
import { once } from "node:events";
import { bashScript, probeBash } from "../support/bash.js";
import { descendants } from "../support/proc.js";
import { waitUntilBusy } from "../scenarios/teardown.js";
import { openSessions, startHost } from "../support/systems.js";

const sessions = Number(process.argv[2] ?? 200);
const ending = process.argv[3] ?? "SIGTERM";
const host = await startHost([
  "--default-mode",
  "auto",
  "--max-live-workers",
  String(sessions + 8),
  "--log-level",
  "debug",
]);
const child = host.client.child!;
const lines: string[] = [];
let partial = "";
child.stderr!.on("data", (chunk: string) => {
  const parts = (partial + chunk).split("\n");
  partial = parts.pop()!;
  for (const line of parts) if (/teardown|drain/.test(line)) lines.push(line);
});
const ids = await openSessions(host.client, sessions, process.cwd());
const inBash = (await probeBash(host.client, ids[0]!)) === null ? sessions / 2 : 0;
for (const [i, id] of ids.entries())
  void host.client.prompt(id, i < inBash ? bashScript("sleep 30") : `/script [{"sleep_ms":30000}]`).catch(() => {});
await waitUntilBusy(host.client, sessions, inBash, host.pid);
const processes = descendants(host.pid).length;
const exited = once(child, "exit");
const t0 = performance.now();
if (ending === "SIGTERM") child.kill("SIGTERM");
else child.stdin!.end();
await exited;
console.log(JSON.stringify({ sessions, processes, teardownMs: Math.round(performance.now() - t0) }));
for (const line of lines) {
  const { msg, phase, ms, time } = JSON.parse(line) as Record<string, unknown>;
  console.log(time, msg, phase ?? "", ms ?? "");
}
await host.dispose(10_000);
