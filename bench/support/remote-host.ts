// A host serving --listen on loopback (test/support's remote host), driven over WebSocket by HostClient.connect, for
// the remote scenarios.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HostClient, type ConnectOptions } from "../../src/client/index.js";
import { startRemoteHost, type RemoteHost } from "../../test/support/remote-host.js";

export interface ListeningHost {
  client: HostClient;
  /** http://…/acp */
  httpUrl: string;
  /** ws://…/acp, for more connections to the same host. */
  wsUrl: string;
  dispose(): Promise<void>;
}

/**
 * Like the stdio host of systems.ts: a throwaway state dir and no hibernation; logs at info (the host's default)
 * unless `args` say otherwise.
 */
export async function startListeningHost(args: string[], connect: ConnectOptions = {}): Promise<ListeningHost> {
  const stateDir = mkdtempSync(join(tmpdir(), "ash-bench-state-"));
  let host: RemoteHost | undefined;
  try {
    host = await startRemoteHost([
      "--state-dir",
      stateDir,
      "--hibernate-after-ms",
      "0",
      "--log-level",
      "info",
      ...args,
    ]);
    const client = await HostClient.connect(host.wsUrl, connect);
    const started = host;
    return {
      client,
      httpUrl: host.httpUrl,
      wsUrl: host.wsUrl,
      dispose: async () => {
        await client.dispose();
        await started.stop("SIGTERM");
        rmSync(stateDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await host?.stop("SIGKILL");
    rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
}
