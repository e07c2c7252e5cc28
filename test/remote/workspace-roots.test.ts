// Tenants confined to their roots: a cwd, an additional directory or a fork's cwd outside the caller's tenant's
// roots is refused before any session exists (-32602, OUTSIDE_WORKSPACE_ROOTS), judged where its symlinks lead; a
// tokens file with a tenant open to every directory refuses the start; `token add --root` writes the roots.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { hashToken, newToken } from "../../src/remote/tokens.js";
import { connectHost } from "../support/checked-host.js";
import { CLI } from "../support/cli-path.js";
import { startHost, tempDir } from "../support/host.js";
import { startRemoteHost, type RemoteHost } from "../support/remote-host.js";
import { script, tool, waitFor } from "../support/tools.js";

const outside = (field: string) => ({
  code: -32602,
  data: expect.objectContaining({ reason: "OUTSIDE_WORKSPACE_ROOTS", field }),
});

describe("two tenants, each with its root", () => {
  let host: RemoteHost;
  let alpha: HostClient;
  let beta: HostClient;
  let ops: HostClient;
  const rootA = realpathSync(tempDir("ash-root-a-"));
  const rootB = realpathSync(tempDir("ash-root-b-"));
  const rootOps = realpathSync(tempDir("ash-root-ops-"));

  beforeAll(async () => {
    const tokens = { alpha: newToken(), beta: newToken(), ops: newToken() };
    const file = join(tempDir("ash-tokens-"), "tokens");
    writeFileSync(
      file,
      `alpha ${hashToken(tokens.alpha)} root=${rootA}\nbeta ${hashToken(tokens.beta)} root=${rootB}\n` +
        `ops ${hashToken(tokens.ops)} operator root=${rootOps}\n`,
    );
    host = await startRemoteHost(["--tokens-file", file]);
    alpha = await connectHost(host.wsUrl, { token: tokens.alpha });
    beta = await connectHost(host.httpUrl, { token: tokens.beta });
    ops = await connectHost(host.wsUrl, { token: tokens.ops });
  });
  afterAll(async () => {
    await alpha.dispose();
    await beta.dispose();
    await ops.dispose();
    expect(await host.stop()).toBe(0);
  });

  it("a cwd in another tenant's root, or in none, is refused and no session is made", async () => {
    mkdirSync(join(rootA, "work"));
    const mine = await alpha.newSession(join(rootA, "work"));
    expect(mine.sessionId).toBeTruthy();
    await expect(beta.newSession(join(rootA, "work"))).rejects.toMatchObject(outside("cwd"));
    await expect(beta.newSession(rootA)).rejects.toMatchObject(outside("cwd"));
    await expect(beta.newSession("/")).rejects.toMatchObject(outside("cwd"));
    await expect(beta.newSession(tempDir())).rejects.toMatchObject(outside("cwd"));
    // `..` out of its own root is judged where it leads.
    await expect(beta.newSession(join(rootB, "..", rootA.split("/").pop()!))).rejects.toMatchObject(outside("cwd"));
    expect((await beta.list()).sessions).toEqual([]);
  });

  it("a symlink in the tenant's root that leads out is judged where it leads, and so is a path under it", async () => {
    symlinkSync(rootA, join(rootB, "to-a"));
    await expect(beta.newSession(join(rootB, "to-a"))).rejects.toMatchObject(outside("cwd"));
    // A missing path behind the symlink is refused as outside, not answered as missing: nothing of A's is told.
    await expect(beta.newSession(join(rootB, "to-a", "nope"))).rejects.toMatchObject(outside("cwd"));
    mkdirSync(join(rootB, "inside"));
    symlinkSync(join(rootB, "inside"), join(rootB, "to-inside"));
    const { sessionId } = await beta.newSession(join(rootB, "to-inside"));
    expect((await beta.list()).sessions.map((session) => [session.sessionId, session.cwd])).toEqual([
      [sessionId, join(rootB, "inside")],
    ]);
    await beta.close(sessionId);
  });

  it("an additionalDirectories entry outside the roots is refused as outside, before it is refused as unsupported", async () => {
    await expect(
      beta.request("session/new", { cwd: rootB, mcpServers: [], additionalDirectories: [rootA] }),
    ).rejects.toMatchObject(outside("additionalDirectories"));
    await expect(
      beta.request("session/new", { cwd: rootB, mcpServers: [], additionalDirectories: [join(rootB, "inside")] }),
    ).rejects.toMatchObject({ code: -32602, data: expect.objectContaining({ reason: "INVALID_PARAMS" }) });
  });

  it("a fork into another tenant's root is refused; into its own it is made", async () => {
    const { sessionId } = await beta.newSession(rootB);
    await beta.prompt(sessionId, "hello");
    const forksBefore = (await beta.list()).sessions.length;
    await expect(beta.fork(sessionId, rootA)).rejects.toMatchObject(outside("cwd"));
    expect((await beta.list()).sessions).toHaveLength(forksBefore);
    mkdirSync(join(rootB, "fork"));
    const fork = await beta.fork(sessionId, join(rootB, "fork"));
    expect(fork.sessionId).not.toBe(sessionId);
  });

  it("the operator's fork of a tenant's session is that tenant's: its roots bind the fork, not the operator's", async () => {
    const { sessionId } = await alpha.newSession(rootA);
    await alpha.prompt(sessionId, "hello");
    await expect(ops.fork(sessionId, rootOps)).rejects.toMatchObject(outside("cwd"));
    await expect(ops.newSession(rootA)).rejects.toMatchObject(outside("cwd"));
    mkdirSync(join(rootA, "ops-fork"));
    const fork = await ops.fork(sessionId, join(rootA, "ops-fork"));
    expect((await alpha.list()).sessions.map((session) => session.sessionId)).toContain(fork.sessionId);
  });
});

it("SIGHUP re-reads the roots with the tokens; a file whose roots cannot be used is refused whole", async () => {
  const [first, second] = [realpathSync(tempDir("ash-root-")), realpathSync(tempDir("ash-root-"))];
  const token = newToken();
  const file = join(tempDir("ash-tokens-"), "tokens");
  writeFileSync(file, `alpha ${hashToken(token)} root=${first}\n`);
  const host = await startRemoteHost(["--tokens-file", file]);
  const reloads = () => host.stderr().split("tokens file reloaded").length;
  const refusals = () => host.stderr().split("tokens file not reloaded").length;
  const hup = async (settled: () => number) => {
    const before = settled();
    host.child.kill("SIGHUP");
    await waitFor("the tokens file to be read again", () => settled() > before);
  };
  const client = await connectHost(host.wsUrl, { token });
  try {
    const stored = await client.newSession(first);
    const parent = await client.newSession(first);
    mkdirSync(join(first, "sub"));
    await client.close(stored.sessionId);
    writeFileSync(file, `alpha ${hashToken(token)} root=${second}\n`);
    await hup(reloads);
    await expect(client.newSession(first)).rejects.toMatchObject(outside("cwd"));
    // A stored session's cwd is held to today's roots when it is opened again; a live one's child too.
    await expect(client.resume(stored.sessionId, first)).rejects.toMatchObject(outside("cwd"));
    const asked = await client.prompt(parent.sessionId, script(tool("spawn_agent", { prompt: "hi", cwd: "sub" })));
    expect(asked.toolCalls[0]!.status).toBe("failed");
    expect(JSON.stringify(asked.toolCalls[0]!.rawOutput)).toContain("OUTSIDE_WORKSPACE_ROOTS");
    await expect(client.newSession(second)).resolves.toMatchObject({ sessionId: expect.any(String) });
    // A root that is not there: the file is refused, and the roots in force stay.
    writeFileSync(file, `alpha ${hashToken(token)} root=${join(second, "gone")}\n`);
    await hup(refusals);
    await expect(client.newSession(second)).resolves.toMatchObject({ sessionId: expect.any(String) });
  } finally {
    await client.dispose();
    expect(await host.stop()).toBe(0);
  }
});

describe("starting a host", () => {
  it("a tokens file with a tenant that has no root, and no --workspace-root, refuses the start in one line naming it", () => {
    const file = join(tempDir("ash-tokens-"), "tokens");
    writeFileSync(file, `alpha ${hashToken(newToken())} root=${tempDir()}\nopen-one ${hashToken(newToken())}\n`);
    const started = spawnSync(
      process.execPath,
      [CLI, "serve", "--listen", "127.0.0.1:0", "--tokens-file", file, "--state-dir", tempDir()],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(started.status).toBe(2);
    expect(started.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(started.stderr).toContain("open-one");
    expect(started.stderr).toContain("--workspace-root");
  });

  it("token add --root (repeatable) writes the tenant's roots beside its hash", () => {
    const path = join(tempDir(), "tokens");
    const [one, two] = [tempDir(), tempDir()];
    const added = spawnSync(
      process.execPath,
      [CLI, "token", "add", "alpha", "--tokens-file", path, "--root", one, "--root", two],
      { encoding: "utf8" },
    );
    expect(added.status).toBe(0);
    expect(readFileSync(path, "utf8")).toBe(`alpha ${hashToken(added.stdout.trim())} root=${one} root=${two}\n`);
  });

  it("a stdio host with --workspace-root keeps every session in it; without, any directory is a cwd as before", async () => {
    const root = realpathSync(tempDir("ash-root-"));
    const confined = await startHost(["--workspace-root", root]);
    const free = await startHost();
    try {
      await expect(confined.client.newSession(tempDir())).rejects.toMatchObject(outside("cwd"));
      await expect(confined.client.newSession(root)).resolves.toMatchObject({ sessionId: expect.any(String) });
      await expect(free.client.newSession("/")).resolves.toMatchObject({ sessionId: expect.any(String) });
    } finally {
      await confined.dispose();
      await free.dispose();
    }
  });
});
