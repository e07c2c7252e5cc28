// `acp-session-host store …` on a PostgreSQL store:
//   migrate --store URL                       brings the schema to this host's version and exits (what every host
//                                             also does when it starts, under the same advisory lock)
//   output --store URL --session ID [--name N]  lists a session's stored command outputs, or prints one
import pg from "pg";
import { z } from "zod";
import { ConfigError, parseFlags } from "../../flags.js";
import { outputNames, readOutput } from "./outputs.js";
import { migrate, SCHEMA_VERSION } from "./schema.js";

const Store = z
  .string()
  .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
  .describe("the PostgreSQL store (PG* environment variables are honoured as libpq does)");
const MigrateFlags = z.object({ store: Store });
const OutputFlags = z.object({
  store: Store,
  session: z.string().uuid().describe("the session whose outputs to read"),
  name: z.string().min(1).optional().describe("the output to print (default: list them)"),
});

const USAGE =
  "usage: acp-session-host store migrate --store postgres://… | store output --store postgres://… --session ID [--name NAME]";

/** Returns what to print on stdout. */
export async function storeCommand(argv: readonly string[]): Promise<string | Buffer> {
  const [action, ...flags] = argv;
  if (action === "migrate") {
    const { store } = parseFlags(MigrateFlags, flags);
    return withPool(store, async (pool) => {
      const found = await migrate(pool);
      return found === SCHEMA_VERSION
        ? `schema already at version ${SCHEMA_VERSION}\n`
        : `schema migrated from version ${found} to ${SCHEMA_VERSION}\n`;
    });
  }
  if (action === "output") {
    const { store, session, name } = parseFlags(OutputFlags, flags);
    return withPool(store, async (pool) => {
      if (name === undefined) return (await outputNames(pool, session)).map((output) => `${output}\n`).join("");
      const content = await readOutput(pool, session, name);
      if (content === null) throw new ConfigError(`--name: session ${session} has no stored output ${name}`);
      return content;
    });
  }
  throw new ConfigError(USAGE);
}

async function withPool<T>(url: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 5000 });
  try {
    return await work(pool);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`--store: ${(error as Error).message}`);
  } finally {
    await pool.end().catch(() => {});
  }
}
