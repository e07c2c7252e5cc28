// The markdown report of one benchmark run (printed, and saved beside the JSON).
import { isSkipped } from "./context.js";
import { isFailed, type BenchResults, type Outcome } from "./results-types.js";
import type { Figure } from "./stats.js";

/** `median (min–max)` over the runs, or the lone value of a single run. */
export function fmt(f: Figure, digits = decimals(f.median)): string {
  if (!Number.isFinite(f.median)) return "n/a";
  const n = (v: number) => v.toFixed(digits);
  return f.runs.length > 1 && f.min !== f.max ? `${n(f.median)} (${n(f.min)}–${n(f.max)})` : n(f.median);
}

function decimals(value: number): number {
  const abs = Math.abs(value);
  return abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
}

/** The list scenario's sessions are spread over this many cwds. */
const CWDS_NOTE = 100;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function scaled(f: Figure, k: number): Figure {
  return { median: f.median * k, min: f.min * k, max: f.max * k, runs: f.runs.map((v) => v * k) };
}

function x(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : "n/a";
}

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");
}

/** The section's body, or one line saying why there is none. */
function section<T>(title: string, outcome: Outcome<T> | undefined, body: (value: T) => string): string {
  if (outcome === undefined) return ""; // excluded by --only
  if (isSkipped(outcome)) return `### ${title}\n\nskipped: ${outcome.skipped}`;
  // The JSON keeps the whole stack; the table shows its first line.
  if (isFailed(outcome)) return `### ${title}\n\nfailed: ${outcome.failed.split("\n", 1)[0]}`;
  return `### ${title}\n\n${body(outcome)}`;
}

export function markdownReport(results: BenchResults): string {
  const s = results.scenarios;
  const m = results.machine;
  const parts = [
    `## Benchmark ${results.startedAt}${results.quick ? " (quick)" : ""}`,
    "",
    `\`${results.command}\` · ${m.cpus} × ${m.cpuModel} · ${m.memoryGiB} GiB · Node ${m.node} · ${m.platform} ${m.kernel}` +
      (results.git.commit
        ? ` · commit ${results.git.commit.slice(0, 10)}${results.git.dirty ? " (uncommitted changes)" : ""}`
        : "") +
      ` · ${Math.round(results.durationS)} s · load average ${results.loadAverage.start.toFixed(1)} at start, ${results.loadAverage.end.toFixed(1)} at end`,
    "",
    "Each figure is the median over repeated runs, with the spread across runs as (min–max); latencies in ms.",
    "",
    section("0. Worker start: a session worker against a bare thread", s.workerStart, (w) =>
      [
        `${plural(w.runs, "run")}, each system in a fresh process: ${w.starts} starts one after another (CPU and wall time per start: ` +
          "the bare thread until its first message; the session worker until its session is open), then RSS per live idle one " +
          `(${w.live} kept). The bare thread is \`new Worker()\` posting one message.`,
        "",
        table(
          ["", "CPU ms/start", "wall ms/start", "RSS MiB/live worker"],
          [
            ["bare worker (floor)", fmt(w.bare.cpuMsPerStart), fmt(w.bare.wallMsPerStart), fmt(w.bare.rssPerLiveMiB)],
            [
              "session worker",
              fmt(w.session.cpuMsPerStart),
              fmt(w.session.wallMsPerStart),
              fmt(w.session.rssPerLiveMiB),
            ],
            ["session/bare", x(w.ratio.cpu), x(w.ratio.wall), x(w.ratio.rss)],
          ],
        ),
      ].join("\n"),
    ),
    section(
      "1. Throughput: the host against the floor (bare SDK agent over stdio, same scripted model)",
      s.throughput,
      (t) =>
        [
          `${plural(t.runs, "run")}. Every session sends K echo prompts one after another, all S sessions at once; host/floor is the ratio of the medians. ` +
            "The host journals every turn to its session log (fsync at the end of each turn); the floor keeps nothing. " +
            '"host, log on tmpfs" is the host with its state dir on tmpfs, where fdatasync returns at once: the difference is what the turn-end fsync costs on this disk.',
          "",
          table(
            ["S × K", "system", "prompts/s", "p50", "p95", "p99"],
            t.rows.flatMap((r) => [
              [
                `${r.sessions} × ${r.promptsPerSession}`,
                "host",
                fmt(r.host.promptsPerSecond),
                fmt(r.host.latencyMs.p50),
                fmt(r.host.latencyMs.p95),
                fmt(r.host.latencyMs.p99),
              ],
              [
                "",
                "floor",
                fmt(r.floor.promptsPerSecond),
                fmt(r.floor.latencyMs.p50),
                fmt(r.floor.latencyMs.p95),
                fmt(r.floor.latencyMs.p99),
              ],
              ["", "host/floor", x(r.ratio.promptsPerSecond), x(r.ratio.p50), "", x(r.ratio.p99)],
              ...(r.hostOnTmpfs && r.tmpfsRatio
                ? [
                    [
                      "",
                      "host, log on tmpfs",
                      fmt(r.hostOnTmpfs.promptsPerSecond),
                      fmt(r.hostOnTmpfs.latencyMs.p50),
                      fmt(r.hostOnTmpfs.latencyMs.p95),
                      fmt(r.hostOnTmpfs.latencyMs.p99),
                    ],
                    ["", "tmpfs host/floor", x(r.tmpfsRatio.promptsPerSecond), x(r.tmpfsRatio.p50), "", ""],
                  ]
                : []),
            ]),
          ),
          "",
          "One echo prompt, hop by hop, each measured alone with the host's own code (medians, µs): the SDK's decode and encode and the " +
            "stdio round trip are what the floor's p50 is made of; the host adds the hops below.",
          "",
          table(
            [
              "main → worker → main (port)",
              "worker turn (loop + model)",
              "log appends",
              "turn-end fdatasync + sidecar",
              "main: check + translate events",
            ],
            [
              [
                t.breakdown.portRoundTripUs,
                t.breakdown.workerTurnUs,
                t.breakdown.journalAppendUs,
                t.breakdown.journalSyncUs,
                t.breakdown.mainEventsUs,
              ].map((us) => us.toFixed(0)),
            ],
          ),
        ].join("\n"),
    ),
    section("2. session/new", s.sessionNew, (n) =>
      [
        `${plural(n.runs, "run")} of ${n.samples} sessions created one after another; "ready" is session/new plus the first answer (the worker starts behind session/new).`,
        "",
        table(
          ["pool", "session/new p50", "session/new p99", "ready p50", "ready p99"],
          [
            [
              `warm (--warm-workers ${n.samples})`,
              fmt(n.warm.newP50),
              fmt(n.warm.newP99),
              fmt(n.warm.readyP50),
              fmt(n.warm.readyP99),
            ],
            [
              "cold (--warm-workers 0)",
              fmt(n.cold.newP50),
              fmt(n.cold.newP99),
              fmt(n.cold.readyP50),
              fmt(n.cold.readyP99),
            ],
          ],
        ),
        "",
        `${n.burst.sessions} session/new at once (default pool): all answered in ${fmt(n.burst.allNewMs)} ms ` +
          `(p50 ${fmt(n.burst.newP50)}, p99 ${fmt(n.burst.newP99)}); all ${n.burst.sessions} answered a first prompt after ${fmt(n.burst.allReadyMs)} ms.`,
      ].join("\n"),
    ),
    section("3. Memory per live session", s.rss, (r) =>
      [
        `${plural(r.runs, "run")} (the top level in the first only). Process RSS (VmRSS) after every session answered a prompt, less the idle process ` +
          `(host ${fmt(r.baselineMiB.host)} MiB with no worker, floor ${fmt(r.baselineMiB.floor)} MiB), per session. ` +
          `Sessions are added 50 at a time; a level not reached within ${r.levelDeadlineS} s is measured where it stood ("reached").`,
        "",
        table(
          [
            "live sessions",
            "host reached",
            "host MiB/session",
            "host RSS MiB",
            "host s to open",
            "floor MiB/session",
            "floor RSS MiB",
          ],
          r.rows.map((row) => [
            String(row.sessions),
            fmt(row.host.reached, 0),
            fmt(row.host.perSessionMiB),
            fmt(row.host.totalMiB),
            fmt(row.host.openSeconds),
            fmt(row.floor.perSessionMiB, 3),
            fmt(row.floor.totalMiB),
          ]),
        ),
      ].join("\n"),
    ),
    section("3b. Scale: many sessions at once against as many bare threads", s.scale, (c) =>
      [
        `${plural(c.runs, "run")}. The host: N sessions opened at once, each sending K echo prompts one after another, default flags ` +
          "(past --max-live-workers 256 sessions hibernate and wake). CPU is the host process's (all its threads); RSS is its peak less the idle host. " +
          "The floor, measured right after: N bare worker threads started at once in one process, each answering K echo messages over its port.",
        "",
        table(
          [
            "N × K",
            "host wall ms",
            "floor wall ms",
            "wall host/floor",
            "host CPU ms/session",
            "floor CPU ms/session",
            "CPU host/floor",
            "host RSS MiB/session",
            "p50",
            "p99",
            "failures",
          ],
          c.rows.map((r) => [
            `${r.sessions} × ${r.turns}`,
            fmt(r.host.wallMs),
            fmt(r.floor.wallMs),
            x(r.ratio.wall),
            fmt(r.host.cpuMsPerSession),
            fmt(r.floor.cpuMsPerSession),
            x(r.ratio.cpu),
            fmt(r.host.rssMiBPerSession),
            fmt(r.host.p50),
            fmt(r.host.p99),
            fmt(r.host.failures, 0),
          ]),
        ),
      ].join("\n"),
    ),
    section("4. Noisy neighbour", s.noisyNeighbour, (n) =>
      [
        `${plural(n.runs, "run")}. ${n.victims} sessions each send an echo prompt every ${n.paceMs} ms for ${n.windowMs / 1000} s; in the noisy window one ` +
          `session spins its worker's CPU for ${n.windowMs / 1000} s` +
          (n.printer ? " and another prints 50 MB from bash" : "") +
          ". Event-loop lag is the host main thread's (monitorEventLoopDelay via `_host/stats`).",
        "",
        table(
          ["window", "prompts", "p50", "p99", "event-loop lag p99", "lag max"],
          [
            [
              "quiet",
              fmt(n.quiet.prompts, 0),
              fmt(n.quiet.p50),
              fmt(n.quiet.p99),
              fmt(n.quiet.lagP99),
              fmt(n.quiet.lagMax),
            ],
            [
              "spinning session only",
              fmt(n.spinOnly.prompts, 0),
              fmt(n.spinOnly.p50),
              fmt(n.spinOnly.p99),
              fmt(n.spinOnly.lagP99),
              fmt(n.spinOnly.lagMax),
            ],
            [
              "printing session only",
              fmt(n.printOnly.prompts, 0),
              fmt(n.printOnly.p50),
              fmt(n.printOnly.p99),
              fmt(n.printOnly.lagP99),
              fmt(n.printOnly.lagMax),
            ],
            [
              "noisy (both)",
              fmt(n.noisy.prompts, 0),
              fmt(n.noisy.p50),
              fmt(n.noisy.p99),
              fmt(n.noisy.lagP99),
              fmt(n.noisy.lagMax),
            ],
          ],
        ),
        "",
        `Spinning session: its prompt took ${fmt(n.spinner.promptMs)} ms (${[...new Set(n.spinner.stopReasons)].join(", ")}).` +
          (n.printer
            ? ` Printing session: ${fmt(n.printer.promptMs)} ms, ${fmt(scaled(n.printer.bytesToClient, 1e-6))} MB of output reached the client (${[...new Set(n.printer.status)].join(", ")}).`
            : ` The 50 MB bash printer was skipped: ${n.printerSkipped}.`),
      ].join("\n"),
    ),
    section("5. bash spawn latency", s.bashSpawn, (b) =>
      [
        `${plural(b.runs, "run")}, ${b.samples} sequential \`true\` calls through the bash tool (mode auto), timed from the tool_call update to its completion as the client sees them. ` +
          `A session's first command starts its sandbox: first commands are timed on ${b.samples} fresh sessions among the ${b.liveSessions}; every live session has run one before the live samples.`,
        "",
        table(
          ["live sessions", "tool p50", "tool p99", "whole prompt p50"],
          [
            ["1", fmt(b.oneLive.toolP50), fmt(b.oneLive.toolP99), ""],
            [`${b.liveSessions}, first command`, fmt(b.firstCommand.toolP50), fmt(b.firstCommand.toolP99), ""],
            [String(b.liveSessions), fmt(b.manyLive.toolP50), fmt(b.manyLive.toolP99), fmt(b.manyLive.promptP50)],
          ],
        ),
        "",
        `All ${b.liveSessions} sessions at once: tool p50 ${fmt(b.burst.toolP50)}, p99 ${fmt(b.burst.toolP99)}, all done after ${fmt(b.burst.allDoneMs)} ms, ${fmt(b.burst.failed, 0)} failed${b.burstFailures.length ? ` (${b.burstFailures.map((f) => `"${f}"`).join(", ")})` : ""}.`,
      ].join("\n"),
    ),
    section("6. Teardown of busy sessions", s.teardown, (t) =>
      [
        `${t.sessions} sessions mid-turn (${t.inBash} in a bash \`sleep 30\`, the rest sleeping in the model)` +
          (t.bashSkipped ? ` — bash part skipped: ${t.bashSkipped}` : "") +
          ', then the host is ended; timed to its exit. "Left" counts what ran under the host and is still alive after it.',
        "",
        table(
          [
            "ended by",
            "runs",
            "teardown ms",
            "processes under the host",
            "left afterwards",
            "prompts answered cancelled",
            "exit codes",
          ],
          t.rows.map((r) => [
            r.ending,
            String(r.runs),
            fmt(r.teardownMs),
            fmt(r.processesBefore, 0),
            fmt(r.processesLeft, 0),
            fmt(r.cancelledAnswers, 0),
            r.exitCodes.join(", "),
          ]),
        ),
      ].join("\n"),
    ),
    section("7. The real model path: the OpenAI-compatible provider against its floor", s.openAi, (o) =>
      [
        `${plural(o.runs, "run")}. The local test server runs in a process of its own; "direct" is the same requests made with the \`openai\` client ` +
          "from a process of its own (one client, S sessions' requests at once). Host CPU is the host process's (every thread), read from /proc.",
        "",
        `Cost: ${o.cost.sessions} sessions opened at once, each answering a first prompt, then ${o.cost.turns} prompts each; the server answers at once.`,
        "",
        table(
          ["", "host CPU ms", "against", "ratio", "goal"],
          [
            [
              "per session, to its first answer",
              fmt(o.cost.sessionCpuMs.openai),
              `scripted ${fmt(o.cost.sessionCpuMs.scripted)}`,
              x(o.cost.sessionCpuMs.ratio),
              "≤ 1.2×",
            ],
            [
              "per model turn",
              fmt(o.cost.turnCpuMs.host, 2),
              `direct client ${fmt(o.cost.turnCpuMs.direct, 2)} per request`,
              x(o.cost.turnCpuMs.ratio),
              "≤ 2×",
            ],
          ],
        ),
        "",
        "Path: 50 ms to the first byte, then 100 chunks 2 ms apart; both sides warmed first (the host: a prompt of every session, then one more of all at once; the direct client: one request of every session at once).",
        "",
        table(
          ["S × K", "host prompts/s", "direct prompts/s", "host/direct", "host p50", "direct p50", "host/direct p50"],
          o.path.map((r) => [
            `${r.sessions} × ${r.prompts}`,
            fmt(r.host.promptsPerSecond),
            fmt(r.direct.promptsPerSecond),
            x(r.ratio.promptsPerSecond),
            fmt(r.host.p50),
            fmt(r.direct.p50),
            x(r.ratio.p50),
          ]),
        ),
        "",
        `The seed's workload: N session/new at once, then K prompts each; the server answers at once with 4 text chunks, a finish and a usage chunk. ` +
          `Floor: ${o.seed.floorThreads} bare worker threads started at once, each answering once: ${fmt(o.seed.floorMs)} ms. ` +
          "The seed system's prompts/s are its figures on this machine from issue 24 (not measured in this run).",
        "",
        table(
          [
            "N × K",
            "prompts/s",
            "seed prompts/s",
            "host/seed",
            "p99",
            "all answered first ms",
            "/ floor",
            "CPU s",
            "peak RSS MiB",
          ],
          o.seed.rows.map((r) => [
            `${r.sessions} × ${r.prompts}`,
            fmt(r.promptsPerSecond),
            r.seedPromptsPerSecond === null ? "" : String(r.seedPromptsPerSecond),
            r.seedPromptsPerSecond === null ? "" : x(r.promptsPerSecond.median / r.seedPromptsPerSecond),
            fmt(r.p99),
            fmt(r.allFirstMs),
            r.sessions === o.seed.floorThreads ? x(r.allFirstMs.median / o.seed.floorMs.median) : "",
            fmt(r.cpuS),
            fmt(r.peakRssMiB),
          ]),
        ),
        "",
        `A slow model (1 s to the first byte, 50 chunks a second), ${o.slow.sessions} sessions × ${o.slow.turns} turns, both sides warmed as above: turn latency through the host against the direct client's.`,
        "",
        table(
          ["", "host", "direct", "host adds", "goal"],
          [
            ["p50", fmt(o.slow.host.p50), fmt(o.slow.direct.p50), o.slow.addedP50.toFixed(1), "≤ 5"],
            ["p99", fmt(o.slow.host.p99), fmt(o.slow.direct.p99), o.slow.addedP99.toFixed(1), "≤ 50"],
          ],
        ),
      ].join("\n"),
    ),
    section("8. Remote: WebSocket against stdio", s.remote, (r) =>
      [
        `${plural(r.runs, "run")}. One host build, ${r.sessions} sessions × ${r.promptsPerSession} echo prompts, all sessions at once: over stdio, and over ` +
          "WebSocket to the same host serving `--listen 127.0.0.1:0` (one connection, no TLS, no tokens); websocket/stdio is the ratio of the medians.",
        "",
        table(
          ["transport", "prompts/s", "p50", "p99"],
          [
            ["stdio", fmt(r.stdio.promptsPerSecond), fmt(r.stdio.p50), fmt(r.stdio.p99)],
            ["WebSocket", fmt(r.websocket.promptsPerSecond), fmt(r.websocket.p50), fmt(r.websocket.p99)],
            ["websocket/stdio", x(r.ratio.promptsPerSecond), x(r.ratio.p50), x(r.ratio.p99)],
          ],
        ),
      ].join("\n"),
    ),
    section("9. MCP servers", s.mcp, (m) =>
      [
        `${plural(m.runs, "run")}, ${m.samples} samples each, mode auto. session/new with no MCP server and with 3 stdio servers (the everything ` +
          "server, run by the spawner in the session's sandbox); the first tool list is session/new until all 3 servers reported `_host/mcp_status`; " +
          "an echo call through the host (tool_call to completion) against the same call from an MCP client in the benchmark process.",
        "",
        table(
          [
            "session/new p50, 0 servers",
            "session/new p50, 3 servers",
            "first tool lists p50",
            "call via host p50",
            "direct call p50",
            "overhead p50",
          ],
          [
            [
              fmt(m.figures.newP50NoMcp),
              fmt(m.figures.newP50ThreeMcp),
              fmt(m.figures.toolListP50),
              fmt(m.figures.hostCallP50),
              fmt(m.figures.directCallP50),
              fmt(m.figures.overheadP50),
            ],
          ],
        ),
      ].join("\n"),
    ),
    section("10. Restore of a long session log, as appended and compacted", s.restore, (r) =>
      [
        `${plural(r.runs, "run")}. Logs written as a scripted session writes them (an echo, every fourth turn a bash call). ` +
          `restore: a worker's restore in-process (read, check, fold the conversation; median of ${r.samples.restore}); ` +
          `resume: session/resume through a host with a standby worker (median of ${r.samples.resume}); load: session/load with the replay of every message (median of ${r.samples.load}).`,
        "",
        table(
          ["turns", "log", "log MiB", "restore ms", "resume ms", "load ms"],
          r.rows.map((row) => [
            String(row.turns),
            row.compacted ? "compacted" : row.compactionSkipped ? "compaction skipped (not smaller)" : "as appended",
            (row.logBytes / 2 ** 20).toFixed(1),
            fmt(row.restoreMs),
            fmt(row.resumeMs),
            fmt(row.loadMs),
          ]),
        ),
        "",
        `First answer after resume: session/resume and one prompt, each in a host started for it, of a long session against a ` +
          `one-turn session's (${fmt(r.firstAnswer.oneTurnMs)} ms), in rounds. Summarised: usage each turn, the context summarised every so many turns, as on a real model; ` +
          "never: a scripted session's log. A log is compacted only when that makes it smaller.",
        "",
        table(
          ["turns", "context summarised", "log", "log MiB", "ms", "goal ms (1.5× one turn + 50)", "met"],
          r.firstAnswer.rows.map((row) => [
            String(row.turns),
            row.summarisedEvery === null ? "never" : `every ${row.summarisedEvery} turns`,
            row.compacted ? "compacted" : "as appended",
            (row.logBytes / 2 ** 20).toFixed(1),
            fmt(row.ms),
            r.firstAnswer.goalMs.toFixed(1),
            row.ms.median <= r.firstAnswer.goalMs ? "yes" : "no",
          ]),
        ),
      ].join("\n"),
    ),
    section("11. session/list over many stored sessions", s.list, (l) =>
      [
        `${plural(l.runs, "run")} over ${l.sessions} stored sessions (a header and a sidecar each, written in ${l.writeS.toFixed(0)} s before the host starts), ${l.pageSize} a page. ` +
          `First page: the first session/list after start (it waits for the index: every sidecar read once). Page: ${l.pagesWalked} pages walked with the cursor. ` +
          `cwd page: filtered to a cwd 1 session in ${CWDS_NOTE} has. After a turn: the first page right after a prompt in a new session (listed first).`,
        "",
        table(
          ["first page", "host RSS MiB", "page p50", "page p99", "cwd page p50", "after a turn"],
          [
            [
              fmt(l.figures.firstPageMs),
              fmt(l.figures.rssMiB),
              fmt(l.figures.pageP50),
              fmt(l.figures.pageP99),
              fmt(l.figures.cwdPageP50),
              fmt(l.figures.afterTurnMs),
            ],
          ],
        ),
      ].join("\n"),
    ),
    section("12. Fleet: sessions in PostgreSQL", s.fleet, (f) =>
      [
        `${plural(f.runs, "run")}, on a throwaway PostgreSQL cluster on this machine (fsync on). ` +
          `Throughput: one host, ${f.throughput.sessions} sessions × ${f.throughput.prompts} echo prompts, with the PostgreSQL store against the state dir; ` +
          "commits/turn counts the statements that committed appends (group commit) per turn ended. " +
          `Failover: a host holding ${f.failover.sessions} sessions killed with SIGKILL, until every one of them was resumed and answered a prompt on another host (--lease-ms ${f.failover.leaseMs}: a dead host's leases must expire first). ` +
          `Takeover: session/resume on one live host of a session another live host holds (${f.takeover.samples} one after another). ` +
          `List: a page of ${f.list.pageSize} over ${f.list.sessions} stored sessions. ` +
          `Appends: ${f.appends.hosts} hosts × ${f.appends.sessions / f.appends.hosts} sessions sending echo prompts at once; records committed per second (what one primary took from them).`,
        "",
        table(
          ["measure", "figure", "goal"],
          [
            ["prompts/s, PostgreSQL store", fmt(f.throughput.postgres), ""],
            ["prompts/s, state dir", fmt(f.throughput.dir), ""],
            ["PostgreSQL/dir", x(f.throughput.ratio), "≥ 1.0×"],
            ["commits/turn", fmt(f.throughput.commitsPerTurn, 2), "< 1"],
            ["failover ms", fmt(f.failover.ms), `≤ ${f.failover.leaseMs + 2000}`],
            ["takeover p50 ms", fmt(f.takeover.p50), "≤ 50"],
            ["takeover p99 ms", fmt(f.takeover.p99), ""],
            ["list page p50 ms", fmt(f.list.pageP50), "≤ 20"],
            ["list page p99 ms", fmt(f.list.pageP99), ""],
            ["appends/s (records committed)", fmt(f.appends.appendsPerSecond), "stated"],
            ["commits/s", fmt(f.appends.commitsPerSecond), ""],
            ["prompt p99 ms meanwhile", fmt(f.appends.p99), ""],
          ],
        ),
      ].join("\n"),
    ),
    section("13. Remote: one connection floods, another echoes", s.flood, (f) =>
      [
        `${plural(f.runs, "run")}. One host serving \`--listen 127.0.0.1:0\`: a session answers echo prompts one after another over one WebSocket, ` +
          `quiet, then while another WebSocket's ${f.requests} requests (sent at once, each answered with an error) are being answered. ` +
          "The goal: flooded p99 within 2× quiet.",
        "",
        table(
          [
            "quiet p50",
            "quiet p99",
            "flooded p50",
            "flooded p99",
            "p99 flooded/quiet",
            "echoes during",
            "flood answered in s",
          ],
          [
            [
              fmt(f.quiet.p50),
              fmt(f.quiet.p99),
              fmt(f.flooded.p50),
              fmt(f.flooded.p99),
              fmt(f.p99Ratio),
              fmt(f.flooded.echoes, 0),
              fmt(f.floodS),
            ],
          ],
        ),
      ].join("\n"),
    ),
    section("14. session/fork of a long session, as appended and compacted", s.fork, (f) =>
      [
        `${plural(f.runs, "run")} of ${f.samples} forks each (their median is the run's figure), through a host with a standby worker, the source stored and not open; ` +
          "logs written as a scripted session writes them (an echo, every fourth turn a bash call). fork ms: session/fork sent to answered (the fork written: committed on PostgreSQL; in the state dir flushed right after, as a new session's log is); " +
          "bytes written: what the fork added to the store (its log; on PostgreSQL its header, snapshot and copied records), beside what the source takes." +
          (f.postgresSkipped ? ` PostgreSQL: ${f.postgresSkipped}.` : ""),
        "",
        table(
          ["store", "turns", "source", "source MiB", "fork ms", "bytes written MiB", "goal"],
          f.rows.map((row) => [
            row.store,
            String(row.turns),
            row.compacted ? "compacted" : "as appended",
            (row.sourceBytes / 2 ** 20).toFixed(2),
            fmt(row.forkMs),
            (row.bytesWritten.median / 2 ** 20).toFixed(2),
            row.turns === 10_000 ? "≤ 100 ms; ≤ one compacted copy" : "",
          ]),
        ),
      ].join("\n"),
    ),
    section("15. A parent fanning out to child sessions", s.fanOut, (f) =>
      [
        `${plural(f.runs, "run")} of ${f.samples} samples each. parent: one prompt whose answer asks for ${f.children} children at once (spawn_agent), each running an echo turn in a worker of its own, ` +
          `timed to the parent's answer; client: ${f.children} × (session/new, then an echo prompt) from the client, all at once, timed to the last answer. ` +
          `Samples alternate; each starts on a quiet host with ${f.children + 1} started workers on standby.`,
        "",
        table(
          ["path", "ms", "goal"],
          [
            ["parent fans out", fmt(f.parentMs), ""],
            ["client makes them", fmt(f.clientMs), ""],
            ["parent/client", x(f.ratio), "≤ 1.2×"],
          ],
        ),
      ].join("\n"),
    ),
    section("16. What tracing costs", s.tracing, (f) =>
      [
        `${plural(f.runs, "run")}; each: a host with tracing off and one with it on side by side, at once (the machine's drift falls on both), ${f.sessions} sessions × ${f.costTurns} turns each, all at once; host CPU per turn (from /proc, until the host is idle after them, so the exports are counted). ` +
          "on: OTEL_TRACES_EXPORTER=otlp, every span sampled, exported over OTLP/HTTP to an endpoint in the bench process; echo: the scripted model (a turn, a chat span); " +
          `model: the OpenAI-compatible provider against the test server. OTLP bytes per traced turn: echo ${f.exportedBytesPerTurn.echo.toFixed(0)}, model ${f.exportedBytesPerTurn.model.toFixed(0)}.`,
        "",
        table(
          ["turn", "off ms", "on ms", "on/off", "goal"],
          f.rows.map((row) => [row.turn, fmt(row.off), fmt(row.on), x(row.ratio), "≤ 1.1×"]),
        ),
        "",
        `An exporter in trouble: echo turns' p99 with tracing on and the endpoint answering, down (connection refused), 5 s slow, answering 500, each beside a host with tracing off, at once, ${f.troubleSessions} sessions × ${f.turns} turns each; added: the median of the runs' on - off.`,
        "",
        table(
          ["endpoint", "off p99 ms", "on p99 ms", "added to p99 ms", "goal"],
          f.trouble.map((row) => [row.endpoint, fmt(row.off), fmt(row.on), row.addedP99.toFixed(2), "≤ 5 ms"]),
        ),
      ].join("\n"),
    ),
    section("17. Sockets that never authenticate", s.socketFlood, (f) =>
      [
        `${plural(f.runs, "run")}. A host with a tokens file and \`--max-connections 64\`: a session answers echo prompts one after another over an authenticated WebSocket, ` +
          "quiet, then while another process holds open from one address 200 silent sockets, 60 slowloris ones and 5 refused requests trickling their bodies, " +
          "each renewed as soon as the host closes it (measured once the flood has been renewed past its first sockets); then 20 new authenticated WebSocket " +
          `connections, 20 HTTP initialize requests and 20 \`/healthz\` requests under the same flood (answers other than 200: ${f.healthFailures}). ` +
          `The flood's sockets closed by the host: ${fmt(f.closedPerSecond, 0)} a second.`,
        "",
        table(
          ["measure", "figure", "goal"],
          [
            ["echo p50 quiet / flooded ms", `${fmt(f.quiet.p50)} / ${fmt(f.flooded.p50)}`, ""],
            ["echo p99 quiet / flooded ms", `${fmt(f.quiet.p99)} / ${fmt(f.flooded.p99)}`, ""],
            ["echo p99 flooded / quiet", fmt(f.p99Ratio), "≤ 1.5×"],
            ["WebSocket connect p99 ms", fmt(f.webSocketConnectP99), "≤ 1000"],
            ["HTTP request p99 ms", fmt(f.httpRequestP99), "≤ 1000"],
          ],
        ),
      ].join("\n"),
    ),
    results.incidents.length === 0
      ? ""
      : `### Incidents\n\nFaults the run worked around:\n\n${results.incidents.map((i) => `- ${i.count} × ${i.message}`).join("\n")}`,
  ];
  return `${parts
    .filter((part) => part !== "")
    .join("\n\n")
    .replace(/\n{3,}/g, "\n\n")}\n`;
}
