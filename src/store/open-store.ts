// Opens the store --store names: PostgreSQL for a postgres:// or postgresql:// URL, else the state dir.
import { join } from "node:path";
import { ConfigError, hostIdOf, isPostgresUrl, type HostConfig } from "../host/config.js";
import type { Logger } from "../host/logger.js";
import { DirStore } from "./dir/dir-store.js";
import type { SessionStore } from "./session-store.js";

/** Throws ConfigError (one line naming the store) when the store cannot be used. */
export async function openStore(config: HostConfig, log: Logger): Promise<SessionStore> {
  const url = config.store;
  if (url !== undefined && isPostgresUrl(url)) {
    // node-postgres is loaded only by hosts that use it.
    const { PostgresStore } = await import("./postgres/postgres-store.js");
    // Full command outputs stay on the host that ran them, in its state dir (hidden from every sandbox).
    const outputRoot = join(config["state-dir"], "outputs");
    return PostgresStore.open(
      {
        url,
        hostId: hostIdOf(config),
        leaseMs: config["lease-ms"],
        compactBytes: config["log-compact-bytes"],
        outputRoot,
      },
      log,
    );
  }
  try {
    return new DirStore(config["state-dir"], log, { compactBytes: config["log-compact-bytes"] });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`--state-dir ${config["state-dir"]}: ${(error as Error).message}`);
  }
}
