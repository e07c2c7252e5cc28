// The bubblewrap sandbox, for real: what a command can and cannot reach in each mode, and fail-closed behaviour
// when bwrap is missing or cannot start.
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { bash, resultOf, results, script, tool, waitFor } from "../support/tools.js";

const unique = () => randomBytes(6).toString("hex");

let server: Server;
let port = 0;
let connections = 0;
beforeAll(async () => {
  server = createServer((socket) => {
    connections++;
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  server.close();
});

const connect = () => bash(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected && cat <&3`);

describe("sandboxed modes", () => {
  let host: TestHost;
  let stateDir: string;
  beforeAll(async () => {
    stateDir = tempDir("ash-state-");
    host = await startHost(["--default-mode", "auto", "--state-dir", stateDir]);
  });
  afterAll(() => host.dispose());

  it("workspace-write: the workspace and a private /tmp are writable; ../other, / and a symlink to /etc are not", async () => {
    const root = tempDir();
    const ws = join(root, "ws");
    mkdirSync(join(root, "other"), { recursive: true });
    mkdirSync(ws);
    writeFileSync(join(root, "other", "secret"), "top secret\n");
    symlinkSync("/etc", join(ws, "etc-link"));
    const outside = `/outside-${unique()}`;
    const probe = `acp-sandbox-probe-${unique()}`;
    const privateTmp = `/tmp/private-${unique()}`;
    const { sessionId } = await host.client.newSession(ws);

    const result = await host.client.prompt(
      sessionId,
      script(
        bash("cat ../other/secret"),
        bash(`echo x > ${outside}`),
        bash(`echo x > etc-link/${probe}`),
        bash(`echo inside > made-here && echo tmp > ${privateTmp} && cat ${privateTmp}`),
      ),
    );
    const [secret, root_, etc, inside] = result.toolCalls;
    expect(secret!.status).toBe("failed");
    expect(resultOf(secret)).toContain("No such file or directory");
    expect(resultOf(secret)).not.toContain("top secret");
    expect(root_!.status).toBe("failed");
    expect(resultOf(root_)).toContain("Read-only file system");
    expect(existsSync(outside)).toBe(false);
    expect(etc!.status).toBe("failed");
    expect(resultOf(etc)).toContain("Read-only file system");
    expect(existsSync(`/etc/${probe}`)).toBe(false);

    expect(inside!.status).toBe("completed");
    expect(resultOf(inside)).toBe("tmp\n[exit code 0]");
    expect(readFileSync(join(ws, "made-here"), "utf8")).toBe("inside\n");
    expect(existsSync(privateTmp)).toBe(false);
  });

  it("network is off unless --sandbox-network", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const before = connections;
    const result = await host.client.prompt(sessionId, script(connect()));
    expect(result.toolCalls[0]!.status).toBe("failed");
    expect(resultOf(result.toolCalls[0])).not.toContain("connected");
    expect(connections).toBe(before);
  });

  it("read-only: commands cannot write anywhere; write tools are refused; reads work", async () => {
    const ws = tempDir();
    writeFileSync(join(ws, "notes.txt"), "original\n");
    const { sessionId } = await host.client.newSession(ws, { mode: "read-only" });
    const result = await host.client.prompt(
      sessionId,
      script(
        bash("cat notes.txt"),
        bash("echo changed > notes.txt"),
        bash(`touch /tmp/ro-${unique()}`),
        tool("write_file", { path: "notes.txt", content: "changed\n" }),
        tool("edit_file", { path: "notes.txt", old_string: "original", new_string: "changed" }),
        tool("read_file", { path: "notes.txt" }),
      ),
    );
    const [cat, overwrite, tmp, write, edit, read] = result.toolCalls;
    expect(resultOf(cat)).toBe("original\n[exit code 0]");
    expect(overwrite!.status).toBe("failed");
    expect(resultOf(overwrite)).toContain("Read-only file system");
    expect(tmp!.status).toBe("failed");
    expect(resultOf(tmp)).toContain("Read-only file system");
    expect(write!.status).toBe("failed");
    expect(resultOf(write)).toBe("write_file is refused in read-only mode: this session may not change files");
    expect(edit!.status).toBe("failed");
    expect(resultOf(edit)).toBe("edit_file is refused in read-only mode: this session may not change files");
    expect(resultOf(read)).toBe("original");
    expect(readFileSync(join(ws, "notes.txt"), "utf8")).toBe("original\n");
  });

  it("other live sessions' workspaces and the session logs are hidden from a read-only sandbox, which otherwise reads the whole filesystem", async () => {
    const theirs = tempDir();
    writeFileSync(join(theirs, "secret"), "their secret\n");
    const other = await host.client.newSession(theirs);
    await host.client.prompt(other.sessionId, "a prompt that goes into the log");
    const plain = tempDir();
    writeFileSync(join(plain, "readable"), "not a workspace\n");
    const { sessionId } = await host.client.newSession(tempDir(), { mode: "read-only" });
    const result = await host.client.prompt(
      sessionId,
      script(
        bash(`cat ${theirs}/secret`),
        bash(`ls -A ${theirs}`),
        bash(`ls -A ${stateDir}`),
        bash(`grep -r "into the log" ${stateDir}`),
        bash(`cat ${plain}/readable`),
      ),
    );
    const [secret, listing, state, grep, readable] = result.toolCalls;
    expect(secret!.status).toBe("failed");
    expect(resultOf(secret)).not.toContain("their secret");
    expect(resultOf(listing)).toBe("[exit code 0]");
    expect(resultOf(state)).toBe("[exit code 0]");
    expect(resultOf(grep)).toBe("[exit code 1]");
    expect(resultOf(readable)).toBe("not a workspace\n[exit code 0]");
    // the host itself sees both
    expect(readFileSync(join(theirs, "secret"), "utf8")).toBe("their secret\n");
    expect(readdirSync(join(stateDir, "sessions")).length).toBeGreaterThan(0);
  });

  it("full-access is not offered without --allow-full-access", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    await expect(host.client.setMode(sessionId, "full-access")).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "modeId" }),
    });
  });
});

describe("fail closed", () => {
  it("with bwrap missing, sandboxed commands fail and never run; full-access (when allowed) still runs", async () => {
    const host = await startHost([
      "--default-mode",
      "auto",
      "--bwrap-path",
      "/nonexistent/bwrap",
      "--allow-full-access",
    ]);
    try {
      await waitFor("the boot log line", () =>
        host.stderr().includes("sandbox unavailable: sandboxed commands will fail closed"),
      );
      const ws = tempDir();
      const { sessionId } = await host.client.newSession(ws);
      const auto = await host.client.prompt(sessionId, script(bash("touch marker-auto")));
      expect(auto.toolCalls[0]!.status).toBe("failed");
      expect(resultOf(auto.toolCalls[0])).toMatch(
        /^sandbox unavailable: bubblewrap at \/nonexistent\/bwrap cannot be started: .*ENOENT.*never run unsandboxed/,
      );
      await host.client.setMode(sessionId, "read-only");
      const readOnly = await host.client.prompt(
        sessionId,
        script(bash("touch marker-ro"), bash("echo hi", { run_in_background: true })),
      );
      for (const call of readOnly.toolCalls) expect(call.status).toBe("failed");
      expect(results(readOnly)[1]).toContain("sandbox unavailable");
      expect(existsSync(join(ws, "marker-auto"))).toBe(false);
      expect(existsSync(join(ws, "marker-ro"))).toBe(false);

      await host.client.setMode(sessionId, "full-access");
      const full = await host.client.prompt(sessionId, script(bash("touch marker-full")));
      expect(full.toolCalls[0]!.status).toBe("completed");
      expect(existsSync(join(ws, "marker-full"))).toBe(true);
    } finally {
      await host.dispose();
    }
  });

  it("a bwrap that cannot make a sandbox here fails the commands with what it said", async () => {
    const bin = tempDir();
    const fake = join(bin, "bwrap");
    // Passes the boot probe (its command is `true`), then fails like a kernel without user namespaces.
    writeFileSync(
      fake,
      `#!/bin/sh\ncase "$*" in *" -- true") exec /usr/bin/bwrap "$@";; esac\necho "bwrap: Creating new namespace failed: Operation not permitted" >&2\nexit 1\n`,
    );
    chmodSync(fake, 0o755);
    const broken = await startHost(["--default-mode", "auto", "--bwrap-path", fake]);
    const failing = await startHost(["--default-mode", "auto", "--bwrap-path", "/bin/false"]);
    try {
      const ws = tempDir();
      const { sessionId } = await broken.client.newSession(ws);
      const result = await broken.client.prompt(sessionId, script(bash("touch marker")));
      expect(result.toolCalls[0]!.status).toBe("failed");
      expect(resultOf(result.toolCalls[0])).toContain(
        "[the sandbox could not start: bwrap: Creating new namespace failed: Operation not permitted; it did not run]",
      );
      expect(existsSync(join(ws, "marker"))).toBe(false);

      const other = tempDir();
      const probed = await failing.client.newSession(other);
      const refused = await failing.client.prompt(probed.sessionId, script(bash("touch marker")));
      expect(refused.toolCalls[0]!.status).toBe("failed");
      expect(resultOf(refused.toolCalls[0])).toMatch(
        /^sandbox unavailable: bubblewrap at \/bin\/false cannot make a sandbox here/,
      );
      expect(existsSync(join(other, "marker"))).toBe(false);
    } finally {
      await Promise.all([broken.dispose(), failing.dispose()]);
    }
  });
});

describe("--sandbox-network and --allow-full-access", () => {
  it("let sandboxed commands reach the network, and full-access commands reach the whole filesystem", async () => {
    const host = await startHost(["--default-mode", "auto", "--sandbox-network", "--allow-full-access"]);
    const written = `/tmp/acp-full-access-${unique()}`;
    try {
      const sandboxed = await host.client.newSession(tempDir());
      const net = await host.client.prompt(sandboxed.sessionId, script(connect()));
      expect(resultOf(net.toolCalls[0])).toBe("connected\nhello from the host\n[exit code 0]");

      const full = await host.client.newSession(tempDir(), { mode: "full-access" });
      const result = await host.client.prompt(full.sessionId, script(bash(`echo unsandboxed > ${written}`)));
      expect(result.toolCalls[0]!.status).toBe("completed");
      expect(readFileSync(written, "utf8")).toBe("unsandboxed\n");
    } finally {
      rmSync(written, { force: true });
      await host.dispose();
    }
  });
});
