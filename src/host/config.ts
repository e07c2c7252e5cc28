// The host's flags: one zod schema is the single source of names, defaults, validation and --help.
import { parseArgs } from "node:util";
import { z } from "zod";
import { SessionModeId } from "../protocol/port.js";

const int = (min: number) => z.coerce.number().int().min(min);
const flag = z
  .union([z.boolean(), z.enum(["true", "false"])])
  .transform((value) => value === true || value === "true");

export const HostConfig = z.object({
  "log-level": z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info").describe("stderr log level"),
  "max-sessions": int(1).default(1000).describe("live sessions allowed at once"),
  "max-live-workers": int(1).default(256).describe("session worker threads alive at once"),
  "warm-workers": int(0).default(4).describe("idle worker threads kept ready for session/new"),
  "session-heap-mb": int(16).default(512).describe("old-generation heap limit of each session worker (MiB)"),
  "cancel-grace-ms": int(0).default(2000).describe("how long a cancelled turn may take before its worker is terminated"),
  "max-turn-requests": int(1).default(50).describe("model requests one prompt may make"),
  "allow-fault-injection": flag.default(false).describe("honour the scripted model's spin_ms, alloc_mb and crash steps"),
  "default-mode": SessionModeId.default("ask").describe("mode of a new session"),
  "allow-full-access": flag.default(false).describe("offer the unsandboxed full-access mode"),
  "sandbox-network": flag.default(false).describe("let sandboxed commands use the network"),
  "max-background-tasks": int(1).default(8).describe("background bash tasks per session"),
  "output-cap-bytes": int(1024).default(64 * 1024).describe("tool output returned to the model (bytes)"),
});
export type HostConfig = z.infer<typeof HostConfig>;

export class ConfigError extends Error {}

/** Parses argv into a validated config; throws ConfigError with one readable line. */
export function parseHostConfig(argv: readonly string[]): HostConfig {
  const shape = HostConfig.shape;
  const options = Object.fromEntries(
    Object.entries(shape).map(([name, schema]) => [name, { type: isBoolean(schema) ? ("boolean" as const) : ("string" as const) }]),
  );
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const parsed = HostConfig.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`--${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data;
}

function isBoolean(schema: z.ZodType): boolean {
  return schema.safeParse("true").success && !schema.safeParse("7").success;
}

export function configHelp(): string {
  return Object.entries(HostConfig.shape)
    .map(([name, schema]) => {
      const def = schema.parse(undefined);
      return `  --${name.padEnd(24)} ${schema.description ?? ""} (default: ${String(def)})`;
    })
    .join("\n");
}
