// A host serving --listen on loopback, driven over WebSocket by HostClient.connect, for the remote scenario.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HostClient, type ConnectOptions } from "../../src/client/index.js";

const CLI = fileURLToPath(new URL("../../src/cli.js", import.meta.url));
const LISTENING = /"url":"(http:\/\/[^"]+)"/;

export interface ListeningHost {
  client: HostClient;
  /** http://…/acp */
  httpUrl: string;
  /** ws://…/acp, for more connections to the same host. */
  wsUrl: string;
  dispose(): Promise<void>;
}

/** Like the stdio host of systems.ts: a throwaway state dir and no hibernation. The URL is read from its info log. */
export async function startListeningHost(args: string[], connect: ConnectOptions = {}): Promise<ListeningHost> {
  const stateDir = mkdtempSync(join(tmpdir(), "ash-bench-state-"));
  const child = spawn(
    process.execPath,
    [CLI, "serve", "--listen", "127.0.0.1:0", "--state-dir", stateDir, "--hibernate-after-ms", "0", ...args],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const exited = once(child, "exit");
  let log = "";
  try {
    const url = await new Promise<string>((resolve, reject) => {
      // Always drain stderr: a full pipe would stall the host's main thread.
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
        log = (log + chunk).slice(-16_384);
        const match = LISTENING.exec(log);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`host exited (${code}) before listening: ${log}`)));
    });
    const wsUrl = url.replace(/^http/, "ws");
    const client = await HostClient.connect(wsUrl, connect);
    return {
      client,
      httpUrl: url,
      wsUrl,
      dispose: async () => {
        await client.dispose();
        child.kill("SIGTERM");
        await exited;
        rmSync(stateDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child.kill("SIGKILL");
    rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
}
