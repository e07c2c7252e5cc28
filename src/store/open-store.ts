// Opens the store --store names: PostgreSQL for a postgres:// or postgresql:// URL, else the state dir.
import { join } from "node:path";
import { ConfigError, hostIdOf, isPostgresUrl, type HostOptions } from "../host-options.js";
import type { Logger } from "../logger.js";
import { DirStore } from "./dir/dir-store.js";
import type { SessionStore } from "./session-store.js";

/** Throws ConfigError (one line naming the store) when the store cannot be used. */
export async function openStore(config: HostOptions, logger: Logger): Promise<SessionStore> {
  const url = config.store;
  if (url !== undefined && isPostgresUrl(url)) {
    // node-postgres is loaded only by hosts that use it.
    const { PostgresStore } = await import("./postgres/postgres-store.js");
    // Full command outputs stay on the host that ran them, in its state dir (hidden from every sandbox).
    const outputRoot = join(config.stateDir, "outputs");
    return PostgresStore.open(
      {
        url,
        hostId: hostIdOf(config),
        leaseMs: config.leaseMs,
        compactBytes: config.logCompactBytes,
        outputRoot,
      },
      logger,
    );
  }
  try {
    return new DirStore(config.stateDir, logger, { compactBytes: config.logCompactBytes });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`--state-dir ${config.stateDir}: ${(error as Error).message}`);
  }
}
