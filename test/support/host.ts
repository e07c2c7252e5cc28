// Test support: a real host subprocess over real stdio, driven by the package's own client, in temp dirs.
import { HostClient, type PermissionPolicy } from "../../src/client/index.js";
import { tempDir } from "./temp-dirs.js";

export { descendants, isAlive, threadCount } from "./proc.js";
export { tempDir } from "./temp-dirs.js";

export interface TestHost {
  client: HostClient;
  pid: number;
  /** Everything the host wrote to stderr so far (JSON log lines). */
  stderr(): string;
  dispose(): Promise<number | null>;
}

export async function startHost(
  hostArgs: string[] = [],
  permission: PermissionPolicy = "deny",
  env?: NodeJS.ProcessEnv,
): Promise<TestHost> {
  // Session logs go to a temp state dir unless the test names one: never the user's ~/.local/state.
  const stateDir = hostArgs.includes("--state-dir") ? [] : ["--state-dir", tempDir("ash-state-")];
  const client = await HostClient.spawn({
    hostArgs: ["--log-level", "debug", ...stateDir, ...hostArgs],
    stderr: "pipe",
    permission,
    ...(env ? { env } : {}),
  });
  const child = client.child!;
  let log = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (log += chunk));
  return { client, pid: child.pid!, stderr: () => log, dispose: () => client.dispose() };
}
