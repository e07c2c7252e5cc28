// Flags from a zod object schema: node's parseArgs for the syntax, zod for the values, one line per error.
import { parseArgs } from "node:util";
import { type z } from "zod";

type Shape = Record<string, z.ZodType>;

/** A bad command line: the message is one readable line; the CLI prints it and exits 2. */
export class ConfigError extends Error {}

/** Parses argv against `schema` (flag names are its keys); throws ConfigError with one readable line. */
export function parseFlags<S extends Shape>(schema: z.ZodObject<S>, argv: readonly string[]): z.infer<z.ZodObject<S>> {
  const options = Object.fromEntries(
    Object.entries(schema.shape).map(([name, field]) => [name, { type: isBoolean(field) ? ("boolean" as const) : ("string" as const) }]),
  );
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const parsed = schema.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`--${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data;
}

/** One line per flag: name, description, default (when the schema has one). */
export function flagsHelp(schema: z.ZodObject<Shape>): string {
  return Object.entries(schema.shape)
    .map(([name, field]) => {
      const fallback = field.safeParse(undefined);
      const shown = fallback.success && fallback.data !== undefined ? ` (default: ${String(fallback.data)})` : "";
      return `  --${name.padEnd(24)} ${field.description ?? ""}${shown}`;
    })
    .join("\n");
}

function isBoolean(field: z.ZodType): boolean {
  return field.safeParse(true).success && !field.safeParse("7").success;
}
