// On standby, before any lease: what a lease makes the thread parse first, its init and its log's header, is parsed
// once with samples. zod builds a schema's parser on its first use, and in a thread that serves one session that first
// use was the lease's own, between session/new and the first answer (the init's and the header's parsers), now built
// while it waits.
import { WorkerInit } from "../src/protocol/port.js";
import { restoreLogFrom } from "./log/log-repair.js";
import { scriptedLogHeader, scriptedSessionInit } from "./scripted-init.js";

const SAMPLE_SESSION_ID = "00000000-0000-4000-8000-000000000000";

/** Whether both samples were valid (they must stay so: an invalid one warms only the refusal's path). */
export function parseLeaseSamples(): boolean {
  const init = WorkerInit.safeParse(
    scriptedSessionInit(SAMPLE_SESSION_ID, "/", {
      kind: "dir",
      path: "/sample.jsonl",
      sidecarPath: "/sample.meta.json",
      outputDir: "/sample-output",
      settingsFrom: "host",
      compactingPath: "/sample.jsonl.compact",
      restorePointPath: "/sample.jsonl.restore",
      compactBytes: 1,
    }),
  );
  const log = Buffer.from(`${JSON.stringify(scriptedLogHeader(SAMPLE_SESSION_ID, "/", "standby"))}\n`);
  try {
    restoreLogFrom((position, length) => log.subarray(position, position + length), log.length, SAMPLE_SESSION_ID);
  } catch {
    return false;
  }
  return init.success;
}
