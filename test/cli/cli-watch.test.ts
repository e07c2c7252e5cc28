// `acp-session-host watch` end to end: the real CLI, as a subprocess, watches a session of a real listening host (with
// tenants; the token from ACP_SESSION_HOST_TOKEN) as an observer: the last turn of what was said, then the owner's next
// prompt live; Ctrl-C detaches and exits 0; an unknown id is a message and exit 1. With --state-dir it starts a host of
// its own on a state dir holding a stored session.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, expect, it } from "vitest";
import { HostClient } from "../../src/client/index.js";
import { connectHost } from "../support/checked-host.js";
import { CLI } from "../support/cli-path.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, tokensFile, type RemoteHost } from "../support/remote-host.js";
import { bash, script, waitFor } from "../support/tools.js";

let host: RemoteHost;
let tokens: ReturnType<typeof tokensFile>;
const clients: HostClient[] = [];
const watchers: ChildProcess[] = [];

beforeAll(async () => {
  tokens = tokensFile(["alice", "bob"]);
  host = await startRemoteHost(["--tokens-file", tokens.path]);
});
afterAll(async () => {
  for (const watcher of watchers) if (watcher.exitCode === null && watcher.signalCode === null) watcher.kill("SIGKILL");
  await Promise.all(clients.map((client) => client.dispose()));
  expect(await host.stop()).toBe(0);
});

interface Watcher {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

function watch(args: string[], token?: string): Watcher {
  const env = { ...process.env };
  if (token) env.ACP_SESSION_HOST_TOKEN = token;
  else delete env.ACP_SESSION_HOST_TOKEN;
  const child = spawn(process.execPath, [CLI, "watch", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  watchers.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = (once(child, "exit") as Promise<[number | null]>).then(([code]) => code);
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function owner(): Promise<HostClient> {
  const client = await connectHost(host.wsUrl, { token: tokens.tokens.alice!, permission: "allow" });
  clients.push(client);
  return client;
}

it("--turns 1 shows the last turn only, then the owner's next prompt live; Ctrl-C detaches and exits 0", async () => {
  const alice = await owner();
  const { sessionId } = await alice.newSession(tempDir());
  await alice.prompt(sessionId, "first question");
  await alice.prompt(sessionId, "second question");
  await alice.prompt(sessionId, script(bash("echo from the tool"), { say: "the tool said: {{result}}" }));

  const watcher = watch(["--connect", host.wsUrl, sessionId, "--turns", "1"], tokens.tokens.alice);
  await waitFor("the watcher to attach", () => watcher.stderr().includes("Ctrl-C to stop"));
  await waitFor("the last turn's answer", () => watcher.stdout().includes("the tool said: from the tool"));
  const replayed = watcher.stdout();
  expect(replayed).toContain("> /script ");
  expect(replayed).toContain("[tool] echo from the tool (completed)");
  expect(replayed).toContain("    from the tool");
  // The earlier turns are not shown (stderr says how many were left out).
  expect(replayed).not.toContain("first question");
  expect(replayed).not.toContain("second question");
  expect(watcher.stderr()).toContain("2 earlier turns not shown");

  await alice.prompt(sessionId, "a live one");
  await waitFor("the live prompt and its answer", () => watcher.stdout().includes("You said: a live one"));
  await waitFor("the live turn's end", () => watcher.stdout().includes("(turn ended: end_turn)"));
  expect(watcher.stdout().slice(replayed.length)).toContain("> a live one\nYou said: a live one\n");

  const attached = host
    .stderr()
    .split("\n")
    .filter((line) => line.includes('"client attached"') && line.includes(sessionId));
  expect(attached).toHaveLength(1);
  expect(attached[0]).toContain('"role":"observer"');
  const attachmentId = /"attachmentId":"([^"]+)"/.exec(attached[0]!)![1]!;
  watcher.child.kill("SIGINT");
  expect(await watcher.exited).toBe(0);
  await waitFor("the host to log the detach", () =>
    host
      .stderr()
      .split("\n")
      .some((line) => line.includes('"client detached"') && line.includes(attachmentId)),
  );
  // The session goes on for its owner.
  expect((await alice.prompt(sessionId, "still here")).text).toBe("You said: still here");
});

it("--from-start shows every turn, over Streamable HTTP; SIGTERM exits 0 too", async () => {
  const alice = await owner();
  const { sessionId } = await alice.newSession(tempDir());
  await alice.prompt(sessionId, "one");
  await alice.prompt(sessionId, "two");
  const watcher = watch(["--connect", host.httpUrl, sessionId, "--from-start"], tokens.tokens.alice);
  await waitFor("both turns", () => watcher.stdout().includes("You said: two"));
  expect(watcher.stdout()).toBe("> one\nYou said: one\n> two\nYou said: two");
  watcher.child.kill("SIGTERM");
  expect(await watcher.exited).toBe(0);
  // The open line is ended before the watcher exits.
  expect(watcher.stdout()).toBe("> one\nYou said: one\n> two\nYou said: two\n");
});

it("an unknown session id, or another tenant's, is a message on stderr and exit 1", async () => {
  const unknown = watch(["--connect", host.wsUrl, "no-such-session"], tokens.tokens.alice);
  expect(await unknown.exited).toBe(1);
  expect(unknown.stderr()).toContain("unknown session: no-such-session");
  expect(unknown.stdout()).toBe("");

  const alice = await owner();
  const { sessionId } = await alice.newSession(tempDir());
  const bob = watch(["--connect", host.wsUrl, sessionId], tokens.tokens.bob);
  expect(await bob.exited).toBe(1);
  expect(bob.stderr()).toContain(`unknown session: ${sessionId}`);

  // Without a token the host refuses the connection.
  const anonymous = watch(["--connect", host.wsUrl, sessionId]);
  expect(await anonymous.exited).toBe(1);
  expect(anonymous.stderr()).toContain("could not reach the host");
});

it("flags it cannot run with are refused (exit 2)", async () => {
  for (const args of [["--connect", host.wsUrl], ["some-id"], ["--connect", host.wsUrl, "x", "--turns", "0"]]) {
    const watcher = watch(args);
    expect(await watcher.exited).toBe(2);
    expect(watcher.stderr()).toMatch(/^acp-session-host: watch/);
  }
});

it("--state-dir: a host of its own opens the stored session and shows its last turn; Ctrl-C ends it", async () => {
  const stateDir = tempDir("ash-state-");
  const first = await HostClient.spawn({ hostArgs: ["--state-dir", stateDir] });
  const { sessionId } = await first.newSession(tempDir());
  await first.prompt(sessionId, "stored one");
  await first.prompt(sessionId, "stored two");
  expect(await first.dispose()).toBe(0);

  const watcher = watch(["--state-dir", stateDir, sessionId]);
  await waitFor(
    "the stored session's last turn",
    () => watcher.stdout().includes("You said: stored two") || watcher.child.exitCode !== null,
  );
  expect(watcher.stderr()).not.toContain("unknown session");
  expect(watcher.stdout()).toBe("> stored two\nYou said: stored two");
  watcher.child.kill("SIGINT");
  expect(await watcher.exited).toBe(0);
});

it("the session closed by its owner ends the watch: the host says why, exit 1", async () => {
  const alice = await owner();
  const { sessionId } = await alice.newSession(tempDir());
  await alice.prompt(sessionId, "before the close");
  const watcher = watch(["--connect", host.wsUrl, sessionId], tokens.tokens.alice);
  await waitFor("the watcher to attach", () => watcher.stderr().includes("Ctrl-C to stop"));
  await alice.close(sessionId);
  expect(await watcher.exited).toBe(1);
  expect(watcher.stderr()).toMatch(/detached by the host: session .* was closed here/);
});
