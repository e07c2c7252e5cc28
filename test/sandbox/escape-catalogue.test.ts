// The escape catalogue: each attempt a session might make to leave its sandbox or reach another session, tried in
// every sandboxed mode, with bash and the file tools where both can try. All must be denied. Directories live under
// /var/tmp so that only the host's own masks hide them (a workspace-write sandbox's private /tmp would hide /tmp).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeParent } from "../../src/spawner/runtime-parent.js";
import { startHost, type TestHost } from "../support/host.js";
import { tempDir } from "../support/temp-dirs.js";
import { bash, cmdline, firstProcess, resultOf, script, spawnerOf, tool, waitFor } from "../support/tools.js";

const MODES = ["auto", "read-only"] as const;
const SECRET = `secret-${randomBytes(6).toString("hex")}`;

let base: string;
let stateDir: string;
let outside: string;
let host: TestHost;
let server: Server;
let port = 0;
let connections = 0;

const dir = (name: string) => {
  const path = join(base, `${name}-${randomBytes(4).toString("hex")}`);
  mkdirSync(path, { recursive: true });
  return path;
};

beforeAll(async () => {
  base = tempDir("ash-escape-", "/var/tmp");
  stateDir = join(base, "state");
  outside = dir("outside");
  writeFileSync(join(outside, "secret"), `${SECRET}\n`);
  server = createServer((socket) => {
    connections++;
    socket.end("hello\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
  host = await startHost(["--default-mode", "auto", "--state-dir", stateDir]);
});

afterAll(async () => {
  await host.dispose();
  server.close();
});

async function session(mode: (typeof MODES)[number], cwd = dir("ws")): Promise<{ id: string; cwd: string }> {
  const { sessionId } = await host.client.newSession(cwd, { mode });
  return { id: sessionId, cwd };
}

async function attempt(sessionId: string, ...steps: unknown[]) {
  const result = await host.client.prompt(sessionId, script(...steps));
  return result.toolCalls.map((call) => ({ status: call.status, out: resultOf(call) }));
}

const outsideUntouched = () => expect(readdirSync(outside)).toEqual(["secret"]);

describe.each(MODES)("escape catalogue, %s mode", (mode) => {
  it("`..`: no write outside the workspace, by bash or the file tools", async () => {
    const s = await session(mode);
    const rel = `../${outside.split("/").at(-1)}`;
    const calls = await attempt(
      s.id,
      bash(`echo x > ${rel}/by-bash`),
      tool("write_file", { path: `${rel}/by-tool`, content: "x" }),
      tool("read_file", { path: `${rel}/secret` }),
    );
    expect(calls.map((c) => c.status)).toEqual(["failed", "failed", "failed"]);
    expect(calls.map((c) => c.out).join("")).not.toContain(SECRET);
    outsideUntouched();
  });

  it("symlinks: a link the host finds or the session makes leads nowhere outside", async () => {
    const s = await session(mode);
    symlinkSync(outside, join(s.cwd, "found-link"));
    const calls = await attempt(
      s.id,
      bash(`ln -s ${outside} made-link; echo x > made-link/by-bash`),
      bash("echo x > found-link/by-bash"),
      tool("write_file", { path: "found-link/by-tool", content: "x" }),
      tool("read_file", { path: "found-link/secret" }),
      tool("write_file", { path: "made-link/by-tool", content: "x" }),
    );
    expect(calls.every((c) => c.status === "failed")).toBe(true);
    expect(
      calls
        .slice(2)
        .map((c) => c.out)
        .join(""),
    ).not.toContain(SECRET);
    outsideUntouched();
  });

  it("symlink race (TOCTOU) on the file tools: a directory swapped for a link to outside while they run", async () => {
    const s = await session(mode);
    const race = join(s.cwd, "race");
    mkdirSync(race);
    writeFileSync(join(race, "secret"), "inside\n");
    // Flips race/ between a real directory and a symlink to outside, as fast as it can, until killed.
    const flipper = spawn(
      "bash",
      ["-c", `cd ${s.cwd}; while :; do mv race race.d; ln -s ${outside} race; rm race; mv race.d race; done`],
      { stdio: "ignore" },
    );
    try {
      const steps = Array.from({ length: 60 }, (_, i) =>
        mode === "auto" && i % 2 === 0
          ? tool("write_file", { path: `race/f${i}`, content: "x" })
          : tool("read_file", { path: "race/secret" }),
      );
      const calls = await attempt(s.id, ...steps);
      expect(calls.map((c) => c.out).join("\n")).not.toContain(SECRET);
    } finally {
      flipper.kill("SIGKILL");
    }
    outsideUntouched();
  }, 120_000);

  it("hard links: the session cannot link a file from outside into its workspace", async () => {
    const s = await session(mode);
    const calls = await attempt(s.id, bash(`ln ${outside}/secret hard && echo x >> hard`));
    expect(calls[0]!.status).toBe("failed");
    expect(existsSync(join(s.cwd, "hard"))).toBe(false);
    outsideUntouched();
  });

  it("/proc/self/root and /proc/<host pid>: no way around the mounts, the host is not even visible", async () => {
    const s = await session(mode);
    symlinkSync("/proc/self/root", join(s.cwd, "root-link"));
    const calls = await attempt(
      s.id,
      bash(`echo x > /proc/self/root${outside}/by-bash`),
      bash(`cat /proc/${host.pid}/environ`),
      bash(`ls /proc/${host.pid}/root${stateDir}`),
      bash(`kill -0 ${host.pid}`),
      tool("read_file", { path: `/proc/self/root${outside}/secret` }),
      tool("read_file", { path: `root-link${outside}/secret` }),
      tool("read_file", { path: `/proc/${host.pid}/environ` }),
      tool("write_file", { path: `root-link${outside}/by-tool`, content: "x" }),
    );
    expect(calls.map((c) => c.status)).toEqual(Array(8).fill("failed"));
    expect(calls.map((c) => c.out).join("")).not.toContain(SECRET);
    outsideUntouched();
  });

  it("ptrace: gdb and strace cannot attach to the host", async () => {
    const s = await session(mode);
    const calls = await attempt(
      s.id,
      bash(`strace -p ${host.pid} -e trace=none 2>&1 | head -3; exit \${PIPESTATUS[0]}`),
      bash(`gdb -p ${host.pid} -batch -ex 'print 1' 2>&1 | tail -3; exit 1`),
    );
    expect(calls[0]!.status).toBe("failed");
    expect(calls[0]!.out).toMatch(/No such process|Operation not permitted/);
    expect(calls[1]!.out).not.toMatch(/Attaching to process .*\n.*\$1 = 1/s);
    expect(calls[1]!.out).toMatch(/No such process|Operation not permitted|ptrace/);
  });

  it("the state dir, other sessions' logs and tool output: hidden from bash, refused to the file tools", async () => {
    const other = await session("auto");
    const marker = `marker-${randomBytes(4).toString("hex")}`;
    await attempt(other.id, bash(`echo ${marker}-output`), bash(`echo ${marker}-bg`, { run_in_background: true }));
    const s = await session(mode);
    const calls = await attempt(
      s.id,
      bash(`grep -rl ${marker} ${stateDir} ${other.cwd}; ls -A ${stateDir}`),
      tool("read_file", { path: join(stateDir, "sessions", `${other.id}.jsonl`) }),
      tool("list_dir", { path: stateDir }),
    );
    expect(calls.map((c) => c.out).join("")).not.toContain(marker);
    expect(calls[1]!.status).toBe("failed");
    expect(calls[2]!.status).toBe("failed");
  });

  it("a workspace that holds the state dir or another session's workspace: both hidden from bash and the file tools", async () => {
    const parent = join(stateDir, "..");
    const nestedWs = dir("nested-ws");
    writeFileSync(join(nestedWs, "their-file"), `${SECRET}\n`);
    const other = await session("auto", nestedWs);
    await attempt(other.id, bash("echo their turn"));
    const s = await session(mode, parent);
    const relState = "state";
    const relOther = nestedWs.slice(parent.length + 1);
    const calls = await attempt(
      s.id,
      bash(`cat ${relOther}/their-file; grep -rl "their turn" ${relState}; ls -A ${relState} ${relOther}`),
      tool("read_file", { path: `${relOther}/their-file` }),
      tool("read_file", { path: `${relState}/sessions/${other.id}.jsonl` }),
      tool("list_dir", { path: `${relState}/sessions` }),
    );
    const out = calls.map((c) => c.out).join("\n");
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain("their turn");
    expect(calls.slice(1).map((c) => c.status)).toEqual(["failed", "failed", "failed"]);
  });

  it("a workspace made inside a live session's after its worker started: hidden from then on, from bash and the file tools", async () => {
    const s = await session(mode, dir("holder"));
    const later = join(s.cwd, "later-ws");
    mkdirSync(later);
    writeFileSync(join(later, "their-file"), `${SECRET}\n`);
    // Its worker and sandbox are up, and the directory is still the session's own.
    expect((await attempt(s.id, bash("true"), tool("read_file", { path: "later-ws/their-file" })))[1]!.out).toContain(
      SECRET,
    );
    await session("auto", later);
    const calls = await attempt(
      s.id,
      bash("cat later-ws/their-file; ls -A later-ws"),
      tool("read_file", { path: "later-ws/their-file" }),
      tool("list_dir", { path: "later-ws" }),
    );
    expect(calls.map((c) => c.out).join("\n")).not.toContain(SECRET);
    expect(calls.slice(1).map((c) => c.status)).toEqual(["failed", "failed"]);
  });

  it("the spawner socket cannot be reached, so no grant can be presented on it", async () => {
    const [spawner] = spawnerOf(host.pid);
    expect(spawner).toBeDefined();
    // The spawner picked its runtime dir's parent the same way, from the same environment.
    const parent = await runtimeParent(undefined);
    const socket = readdirSync(parent)
      .filter((name) => name.startsWith("acp-spawner-"))
      .map((name) => join(parent, name))
      .find((path) => existsSync(join(path, "pid")) && String(spawner) === readFileText(join(path, "pid")));
    expect(socket).toBeDefined();
    const s = await session(mode);
    const py = `import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n  s.connect(sys.argv[1]); print("CONNECTED")\nexcept OSError as e:\n  print("refused", e); sys.exit(1)`;
    const calls = await attempt(s.id, bash(`python3 -c '${py}' ${socket}/spawner.sock`), bash(`ls -A ${socket}`));
    expect(calls[0]!.status).toBe("failed");
    expect(calls[0]!.out).not.toContain("CONNECTED");
    expect(calls[1]!.out).not.toContain("spawner.sock");
  });

  it("network is off (--sandbox-network not given)", async () => {
    const s = await session(mode);
    const before = connections;
    const calls = await attempt(s.id, bash(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected && cat <&3`));
    expect(calls[0]!.status).toBe("failed");
    expect(calls[0]!.out).not.toContain("hello");
    expect(connections).toBe(before);
  });

  it("another session's processes cannot be seen or killed", async () => {
    const victim = await session("auto");
    const tag = 2000 + Math.floor(Math.random() * 1000);
    await attempt(victim.id, bash(`sleep ${tag}`, { run_in_background: true }));
    const pid = await firstProcess(host.pid, `sleep ${tag}`);
    const s = await session(mode);
    const calls = await attempt(
      s.id,
      bash(`kill -9 ${pid}`),
      bash(`pkill -9 -f 'sleep ${tag}'; pgrep -f 'sleep ${tag}'`),
    );
    expect(calls[0]!.status).toBe("failed");
    expect(calls[1]!.status).toBe("failed");
    expect(await waitFor("the victim's sleep still alive", () => cmdline(pid) === `sleep ${tag}`)).toBe(true);
  });
});

function readFileText(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}
