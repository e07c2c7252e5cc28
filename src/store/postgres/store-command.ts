// `acp-session-host store migrate --store postgres://…`: brings the store's schema to this host's version and exits
// (what every host also does when it starts, under the same advisory lock).
import pg from "pg";
import { z } from "zod";
import { ConfigError, parseFlags } from "../../flags.js";
import { migrate, SCHEMA_VERSION } from "./schema.js";

const StoreFlags = z.object({
  store: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .describe("the PostgreSQL store (PG* environment variables are honoured as libpq does)"),
});

/** Returns what to print on stdout. */
export async function storeCommand(argv: readonly string[]): Promise<string> {
  const [action, ...flags] = argv;
  if (action !== "migrate") throw new ConfigError("usage: acp-session-host store migrate --store postgres://…");
  const { store } = parseFlags(StoreFlags, flags);
  const pool = new pg.Pool({ connectionString: store, max: 1, connectionTimeoutMillis: 5000 });
  try {
    const found = await migrate(pool);
    return found === SCHEMA_VERSION ? `schema already at version ${SCHEMA_VERSION}\n` : `schema migrated from version ${found} to ${SCHEMA_VERSION}\n`;
  } catch (error) {
    throw new ConfigError(`--store: ${(error as Error).message}`);
  } finally {
    await pool.end().catch(() => {});
  }
}
