// Test support: a real host subprocess serving --listen on loopback (port 0), its URLs, and its tokens file.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashToken, newToken } from "../../src/remote/tokens.js";
import { CLI } from "./cli-path.js";
import { tempDir } from "./temp-dirs.js";

export interface RemoteHost {
  child: ChildProcess;
  /** http://127.0.0.1:PORT/acp */
  httpUrl: string;
  /** ws://127.0.0.1:PORT/acp */
  wsUrl: string;
  stateDir: string;
  stderr(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export const transports = [
  { name: "WebSocket", url: (host: RemoteHost) => host.wsUrl },
  { name: "Streamable HTTP", url: (host: RemoteHost) => host.httpUrl },
] as const;

/** env: the host's environment (default: this process's). */
export async function startRemoteHost(hostArgs: string[] = [], env?: NodeJS.ProcessEnv): Promise<RemoteHost> {
  const stateDir = hostArgs.includes("--state-dir") ? "" : tempDir("ash-state-");
  const args = [
    CLI,
    "serve",
    "--listen",
    "127.0.0.1:0",
    "--log-level",
    "debug",
    ...(stateDir ? ["--state-dir", stateDir] : []),
    ...withTestRoot(hostArgs),
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], ...(env ? { env } : {}) });
  let log = "";
  child.stderr!.setEncoding("utf8");
  const url = await new Promise<string>((resolve, reject) => {
    let listening = false;
    child.stderr!.on("data", (chunk: string) => {
      log += chunk;
      // Searched until found only: the bench's floods make this log long.
      const match = listening ? null : /"url":"([^"]+)"/.exec(log);
      if (match) {
        listening = true;
        resolve(match[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`host exited (${code}) before listening: ${log}`)));
  });
  const exited = once(child, "exit") as Promise<[number | null]>;
  return {
    child,
    httpUrl: url,
    wsUrl: url.replace(/^http/, "ws"),
    stateDir,
    stderr: () => log,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code] = await exited;
      return code;
    },
  };
}

/**
 * A host with a tokens file serves only tenants with roots: unless the test names them, every tenant's sessions may
 * use the temp dir, where the tests' workspaces are made (tempDir).
 */
export function withTestRoot(hostArgs: readonly string[]): string[] {
  const rooted = hostArgs.some((arg) => arg.startsWith("--workspace-root"));
  const tenants = hostArgs.some((arg) => arg.startsWith("--tokens-file"));
  return tenants && !rooted ? [...hostArgs, "--workspace-root", realpathSync(tmpdir())] : [...hostArgs];
}

/** A tokens file with one fresh token per tenant (operators' marked so); returns the file and the tokens by tenant. */
export function tokensFile(
  tenants: string[],
  operators: string[] = [],
): { path: string; tokens: Record<string, string>; add(tenant: string): string } {
  const path = join(tempDir("ash-tokens-"), "tokens");
  const tokens: Record<string, string> = {};
  writeFileSync(path, "");
  const add = (tenant: string) => {
    const token = newToken();
    appendFileSync(path, `${tenant} ${hashToken(token)}${operators.includes(tenant) ? " operator" : ""}\n`);
    return token;
  };
  for (const tenant of tenants) tokens[tenant] = add(tenant);
  return { path, tokens, add };
}

/**
 * What a client sees of an answer (its result, or its error's code, message and data), with a session id taken out,
 * so the answers about two ids can be compared: another tenant's session must look like one that does not exist.
 */
export async function answerWithout(request: Promise<unknown>, id: string): Promise<unknown> {
  try {
    return { ok: JSON.parse(JSON.stringify((await request) ?? null).replaceAll(id, "<id>")) as unknown };
  } catch (error) {
    const { code, message, data } = error as { code?: number; message: string; data?: unknown };
    return { code, message: message.replaceAll(id, "<id>"), data: JSON.stringify(data ?? null).replaceAll(id, "<id>") };
  }
}
