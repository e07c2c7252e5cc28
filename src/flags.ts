// Flags from a zod object schema: node's parseArgs for the syntax, zod for the values, one line per error.
import { parseArgs } from "node:util";
import { z } from "zod";

type Shape = Record<string, z.ZodType>;

/** A bad command line: the message is one readable line; the CLI prints it and exits 2. */
export class ConfigError extends Error {}

/** A flag's name as code reads it: `cancel-grace-ms` → `cancelGraceMs`. */
export type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** Parsed flags with camelCase keys: what a flags schema's keys name on the command line, code reads this way. */
export type Options<T> = { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] };

export function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * Parses argv against `schema` (flag names are its keys, which its own checks read); throws ConfigError with one
 * readable line. The options it returns are camelCase, resolved once.
 */
export function parseFlags<S extends Shape>(
  schema: z.ZodObject<S>,
  argv: readonly string[],
): Options<z.infer<z.ZodObject<S>>> {
  const options = Object.fromEntries(
    Object.entries(schema.shape).map(([name, field]) => [
      name,
      { type: isBoolean(field) ? ("boolean" as const) : ("string" as const), multiple: isRepeatable(field) },
    ]),
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
  return Object.fromEntries(
    Object.entries(parsed.data as Record<string, unknown>).map(([name, value]) => [camelCase(name), value]),
  ) as Options<z.infer<z.ZodObject<S>>>;
}

/**
 * A share of something, in percent: "80", "80%" and "0.8" all read 80. A bare number up to 1 is a fraction (so "1" is
 * 100%), a larger one a percentage; a "%" sign always means a percentage ("0.5%" is half a percent).
 */
export function percent(min: number, max: number) {
  return z
    .string()
    .trim()
    .transform((text, ctx) => {
      const match = /^(\d+(?:\.\d*)?|\.\d+)\s*(%?)$/.exec(text);
      if (!match) {
        ctx.addIssue({
          code: "custom",
          message: `expected a percentage (80 or 80%) or a fraction (0.8), got "${text}"`,
        });
        return z.NEVER;
      }
      const value = Number(match[1]);
      const inPercent = match[2] === "%" || value > 1 ? value : value * 100;
      // 0.7 * 100 is 70.00000000000001: a share given to a few decimals stays that share.
      return Math.round(inPercent * 1e6) / 1e6;
    })
    .pipe(
      z
        .number()
        .min(min, `must be at least ${min}% (${min / 100})`)
        .max(max, `must be at most ${max}% (${max / 100})`),
    );
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

/** A flag whose schema takes a list is given once per value (`--root A --root B`). */
function isRepeatable(field: z.ZodType): boolean {
  return field.safeParse(["/"]).success && !field.safeParse("/").success;
}

function isBoolean(field: z.ZodType): boolean {
  return field.safeParse(true).success && !field.safeParse("7").success;
}
