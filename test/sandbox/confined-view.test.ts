// What a tenant's session sees: every forbidden path (another tenant's workspace, /etc/shadow, the tokens file, the
// state dir, the host's home) is unreadable from every file tool and from bash, in every mode but full-access, named
// directly or through a symlink in the workspace. The tokens file and the state dir are put inside the tenant's
// workspace, so only the masks keep them out; the others lie outside it, where only the confined root does.
import { mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostClient, ToolCallSummary } from "../../src/client/index.js";
import { hashToken, newToken } from "../../src/remote/tokens.js";
import { connectHost } from "../support/checked-host.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, type RemoteHost } from "../support/remote-host.js";
import { script, tool } from "../support/tools.js";

interface Forbidden {
  name: string;
  path: string;
  kind: "file" | "dir";
  /** Text that must never come back from it (a file's content, a directory's entries). */
  secrets: string[];
}

const rootA = realpathSync(tempDir("ash-root-a-"));
const rootB = realpathSync(tempDir("ash-root-b-"));
const stateDir = join(rootA, "state");
const tokensPath = join(rootA, "tokens");
const tokens = { alpha: newToken(), beta: newToken() };
const secretB = `secret of tenant b ${newToken()}`;

let host: RemoteHost;
let alpha: HostClient;
let beta: HostClient;
let forbidden: Forbidden[];

/** What the model got from a call: its output, or the error it failed with. */
function said(call: ToolCallSummary): string {
  return JSON.stringify([call.rawOutput ?? null, call.output]);
}

beforeAll(async () => {
  writeFileSync(
    tokensPath,
    `alpha ${hashToken(tokens.alpha)} root=${rootA}\nbeta ${hashToken(tokens.beta)} root=${rootB}\n`,
  );
  writeFileSync(join(rootB, "secret.txt"), secretB);
  host = await startRemoteHost(["--tokens-file", tokensPath, "--state-dir", stateDir]);
  alpha = await connectHost(host.wsUrl, { token: tokens.alpha, permission: "allow" });
  beta = await connectHost(host.httpUrl, { token: tokens.beta });
  // B's workspace is live: a session of B works there.
  const { sessionId } = await beta.newSession(rootB);
  await beta.prompt(sessionId, "mine");
  // The suite runs as root, as many containers do: the host could read it, so the sandbox must not.
  const shadow = readFileSync("/etc/shadow", "utf8").split("\n")[0]!;
  const home = homedir();
  forbidden = [
    { name: "another tenant's file", path: join(rootB, "secret.txt"), kind: "file", secrets: [secretB] },
    { name: "another tenant's workspace", path: rootB, kind: "dir", secrets: ["secret.txt"] },
    { name: "/etc/shadow", path: "/etc/shadow", kind: "file", secrets: [shadow] },
    { name: "the tokens file", path: tokensPath, kind: "file", secrets: [hashToken(tokens.beta)] },
    { name: "the state dir", path: stateDir, kind: "dir", secrets: ["sessions"] },
    { name: "the state dir's logs", path: join(stateDir, "sessions"), kind: "dir", secrets: [sessionId] },
    // Its dot files' names: none is a word an error message could hold by chance.
    { name: "the host's home", path: home, kind: "dir", secrets: readdirSync(home).filter((n) => /^\.\w{4,}/.test(n)) },
  ];
  forbidden.forEach((entry, i) => symlinkSync(entry.path, join(rootA, `link-${i}`)));
});
afterAll(async () => {
  await alpha?.dispose();
  await beta?.dispose();
  expect(await host.stop()).toBe(0);
});

describe.each(["ask", "auto", "read-only"])("in mode %s", (mode) => {
  it("no file tool reads, lists or changes a forbidden path, named or through a symlink", async () => {
    const { sessionId } = await alpha.newSession(rootA, { mode });
    const calls = forbidden.flatMap((entry, i) =>
      [entry.path, `link-${i}`].flatMap((path) =>
        (entry.kind === "file"
          ? [
              tool("read_file", { path }),
              tool("write_file", { path, content: "overwritten" }),
              tool("edit_file", { path, old_string: entry.secrets[0]!.slice(0, 6), new_string: "edited" }),
            ]
          : [tool("list_dir", { path }), tool("write_file", { path: join(path, "planted"), content: "x" })]
        ).map((call) => ({ entry, call })),
      ),
    );
    const result = await alpha.prompt(sessionId, script(...calls.map(({ call }) => call)));
    expect(result.toolCalls).toHaveLength(calls.length);
    result.toolCalls.forEach((made, index) => {
      const { entry, call } = calls[index]!;
      expect({ call, status: made.status }).toEqual({ call, status: "failed" });
      for (const secret of entry.secrets) expect(said(made), JSON.stringify(call)).not.toContain(secret);
    });
    expect(readFileSync(join(rootB, "secret.txt"), "utf8")).toBe(secretB);
    expect(readFileSync(tokensPath, "utf8")).toContain(hashToken(tokens.alpha));
  });

  it("bash neither reads nor lists a forbidden path, named or through a symlink", async () => {
    const { sessionId } = await alpha.newSession(rootA, { mode });
    const commands = forbidden.flatMap((entry, i) =>
      [entry.path, join(rootA, `link-${i}`)].map((path) =>
        entry.kind === "file" ? `cat '${path}'` : `ls -A '${path}'`,
      ),
    );
    const result = await alpha.prompt(sessionId, script(...commands.map((command) => tool("bash", { command }))));
    expect(result.toolCalls).toHaveLength(commands.length);
    result.toolCalls.forEach((call, index) => {
      const entry = forbidden[Math.floor(index / 2)]!;
      const output = said(call);
      // It ran (sandboxed), and what it printed holds nothing of the path's.
      expect(output, commands[index]).toContain("exit code");
      for (const secret of entry.secrets) expect(output, commands[index]).not.toContain(secret);
    });
  });
});

it("the workspace itself, the system's programs and a /tmp of its own are there", async () => {
  const { sessionId } = await alpha.newSession(rootA, { mode: "auto" });
  writeFileSync(join(rootA, "mine.txt"), "my own file");
  const result = await alpha.prompt(
    sessionId,
    script(
      tool("bash", { command: "cat mine.txt && echo made > /tmp/t && cat /tmp/t && ls / | tr '\\n' ' '" }),
      tool("read_file", { path: "mine.txt" }),
    ),
  );
  const [bash, read] = result.toolCalls.map(said);
  expect(bash).toContain("my own file");
  expect(bash).toContain("made");
  expect(bash).not.toMatch(/\b(home|root|srv|var|work)\b/);
  expect(read).toContain("my own file");
});

it("a workspace whose directory is swapped for a symlink to another tenant's after its check is refused, not followed", async () => {
  const workspace = join(rootA, "swapped");
  mkdirSync(workspace);
  const { sessionId } = await alpha.newSession(workspace, { mode: "auto" });
  renameSync(workspace, `${workspace}.old`);
  symlinkSync(rootB, workspace);
  const result = await alpha.prompt(
    sessionId,
    script(tool("read_file", { path: "secret.txt" }), tool("bash", { command: "cat secret.txt" })),
  );
  const [read, bash] = result.toolCalls;
  expect(read!.status).toBe("failed");
  expect(bash!.status).toBe("failed");
  for (const call of [read!, bash!]) expect(said(call)).not.toContain(secretB);
});

it("a child made in a directory named through a symlink keeps its real path, and its commands run", async () => {
  mkdirSync(join(rootA, "child-dir"));
  symlinkSync(join(rootA, "child-dir"), join(rootA, "child-link"));
  const { sessionId } = await alpha.newSession(rootA, { mode: "auto" });
  const child = script(tool("bash", { command: "echo child ran in $(pwd)" }), { say: "{{result}}" });
  const result = await alpha.prompt(sessionId, script(tool("spawn_agent", { prompt: child, cwd: "child-link" })));
  expect(result.toolCalls[0]!.status).toBe("completed");
  expect(said(result.toolCalls[0]!)).toContain(`child ran in ${join(rootA, "child-dir")}`);
});
