// `acp-session-host watch (--connect URL | --state-dir DIR) SESSION_ID [--turns N | --from-start]`: a live view of one
// session in the terminal, as an observer (it reads, never changes the session). It attaches with a replay from the
// start, shows the last N turns of it (or all), then the session's updates as they come, until Ctrl-C or SIGTERM,
// which detach and exit 0. With --connect the host is one listening (token from ACP_SESSION_HOST_TOKEN); with
// --state-dir the command starts a host of its own on that state directory and ends it when done.
import { parseArgs } from "node:util";
import { HostClient } from "../client/index.js";
import { ConfigError } from "../host-options.js";
import { WatchView } from "./watch-render.js";

export function watchUsage(): string {
  return (
    `usage: acp-session-host watch --connect URL SESSION_ID [--turns N | --from-start]\n` +
    `       acp-session-host watch --state-dir DIR SESSION_ID [--turns N | --from-start]\n\n` +
    `A live view of one session, as an observer: the last N turns (default 1; --from-start: all of them), then its\n` +
    `updates as they come, until Ctrl-C. --connect: a host listening at URL (token from ACP_SESSION_HOST_TOKEN);\n` +
    `--state-dir: a host of its own on that state directory, ended when done.\n`
  );
}

/** How long Ctrl-C waits for session/detach before closing the connection anyway. */
const DETACH_TIMEOUT_MS = 5000;
/** Over Streamable HTTP the replay may come after the attach's answer: how long it may lag before the view goes live. */
const REPLAY_LAG_MS = 2000;
/** How long a turn's end waits for its last update before it is shown anyway. */
const TURN_END_LAG_MS = 1000;

interface WatchOptions {
  target: { connect: string } | { stateDir: string };
  sessionId: string;
  turns: number | "all";
}

function parse(argv: string[]): WatchOptions {
  let values: { connect?: string; "state-dir"?: string; turns?: string; "from-start"?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        connect: { type: "string" },
        "state-dir": { type: "string" },
        turns: { type: "string" },
        "from-start": { type: "boolean" },
      },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    throw new ConfigError(`watch: ${(error as Error).message}`);
  }
  if (positionals.length !== 1) throw new ConfigError("watch needs one SESSION_ID (see watch --help)");
  if (!values.connect === !values["state-dir"])
    throw new ConfigError("watch needs --connect URL or --state-dir DIR, one of them (see watch --help)");
  if (values.turns !== undefined && values["from-start"])
    throw new ConfigError("watch: --turns and --from-start go one without the other");
  let turns: number | "all" = values["from-start"] ? "all" : 1;
  if (values.turns !== undefined) {
    if (!/^[1-9]\d{0,5}$/.test(values.turns))
      throw new ConfigError(`watch: --turns must be a whole number from 1, got ${values.turns}`);
    turns = Number(values.turns);
  }
  return {
    target: values.connect ? { connect: values.connect } : { stateDir: values["state-dir"]! },
    sessionId: positionals[0]!,
    turns,
  };
}

/** Runs the watcher; resolves with the exit code (0: stopped by Ctrl-C or SIGTERM). */
export async function watchCommand(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const options = parse(argv);
  const { sessionId } = options;
  const say = (message: string) => void err.write(`acp-session-host watch: ${message}\n`);
  const stop = new AbortController();
  const onSignal = () => {
    // A second Ctrl-C does not wait for the detach.
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const hostLog: string[] = [];
  let client: HostClient;
  try {
    client =
      "connect" in options.target
        ? await HostClient.connect(options.target.connect, tokenOption())
        : await HostClient.spawn({
            hostArgs: ["--state-dir", options.target.stateDir],
            // Kept for an error: a host that cannot start says why in its log.
            stderr: (line) => {
              hostLog.push(line);
              if (hostLog.length > 5) hostLog.shift();
            },
          });
  } catch (error) {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    say(`could not reach the host: ${(error as Error).message}`);
    for (const line of hostLog) err.write(`  ${line}\n`);
    return 1;
  }
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };
  try {
    const view = new WatchView(
      options.turns,
      (text) => void out.write(text),
      (skipped) => say(`${skipped} earlier turn${skipped === 1 ? "" : "s"} not shown (--from-start shows all)`),
    );
    // Listening before attaching: the replay comes before the attach's answer.
    const updates = client.updates(sessionId, stop.signal);
    const pumped = (async () => {
      for await (const update of updates) view.update(update);
    })();
    // Counted as they arrive (the view is given them later, through the queue of updates()).
    let arrived = 0;
    const offCount = client.onSessionUpdate(sessionId, () => arrived++);
    let detached: (message: string) => void = () => {};
    const ended = new Promise<string>((resolve) => (detached = resolve));
    const offDetached = client.onDetached((notice) => {
      if (notice.sessionId === sessionId) detached(notice.error.message);
    });
    const offEnded = client.onTurnEnded((ended) => {
      if (ended.sessionId !== sessionId) return;
      if (!view.turnEnded(ended.stopReason, ended.lastEventId)) later(TURN_END_LAG_MS, () => view.flushTurnEnds());
    });
    try {
      const answer = await client.attach(sessionId, { role: "observer", replayFrom: { type: "start" } });
      offCount();
      // Over stdio and WebSocket the replay came before the answer; over Streamable HTTP it may come after.
      const ordered = !("connect" in options.target) || !/^https?:/.test(options.target.connect);
      view.replayEnded(answer.lastEventId, ordered ? arrived : null);
      if (!view.live) later(REPLAY_LAG_MS, () => view.goLive());
      const running = answer.turnRunning ? " (a turn is running)" : "";
      say(`watching session ${sessionId} as an observer${running}; Ctrl-C to stop`);
    } catch (error) {
      stop.abort();
      const { message } = error as Error;
      say(message.includes(sessionId) ? message : `session ${sessionId}: ${message}`);
      return 1;
    }
    // Ctrl-C may have come while attaching.
    const aborted = stop.signal.aborted
      ? Promise.resolve()
      : new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve(), { once: true }));
    const detachedBy = await Promise.race([aborted.then(() => null), client.closed.then(() => null), ended]);
    offEnded();
    offDetached();
    if (detachedBy !== null) {
      stop.abort();
      await pumped;
      view.goLive();
      const open = view.finish();
      if (open) out.write(open);
      say(`detached by the host: ${detachedBy}`);
      return 1;
    }
    await pumped;
    view.flushTurnEnds();
    view.goLive();
    const open = view.finish();
    if (open) out.write(open);
    if (!stop.signal.aborted) {
      // A spawned host gets the terminal's Ctrl-C too and may end first.
      await new Promise((resolve) => setImmediate(resolve));
      if (!stop.signal.aborted) {
        say("the connection to the host closed");
        return 1;
      }
      return 0;
    }
    await Promise.race([
      client.detach(sessionId).catch(() => {}),
      new Promise((resolve) => later(DETACH_TIMEOUT_MS, () => resolve(undefined))),
    ]);
    return 0;
  } finally {
    stop.abort();
    for (const timer of timers) clearTimeout(timer);
    await client.dispose();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

function tokenOption(): { token?: string } {
  const token = process.env.ACP_SESSION_HOST_TOKEN;
  return token ? { token } : {};
}
