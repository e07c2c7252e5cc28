// `acp-session-host token add NAME --tokens-file PATH [--operator] [--root DIR …]`: prints a fresh token once; the
// file gets only its hash, and the tenant's roots.
import { resolve } from "node:path";
import { z } from "zod";
import { ConfigError, parseFlags } from "../flags.js";
import { addToken } from "./token-file.js";

const TokenFlags = z.object({
  "tokens-file": z.string().min(1, "required").describe("the tokens file to append the new token's hash to"),
  operator: z
    .union([z.boolean(), z.enum(["true", "false"])])
    .transform((value) => value === true || value === "true")
    .default(false)
    .describe("mark the token as the host operator's: its connections may call _host/stats and _host/status"),
  root: z
    .array(z.string().min(1).regex(/^\S+$/, "a root may not contain whitespace"))
    .optional()
    .describe("a directory the tenant's sessions may use (repeatable): their cwd must lie in one of its roots"),
});

/** Returns what to print on stdout. */
export async function tokenCommand(argv: readonly string[]): Promise<string> {
  const [action, name, ...flags] = argv;
  if (action !== "add" || !name || name.startsWith("-"))
    throw new ConfigError("usage: acp-session-host token add NAME --tokens-file PATH [--operator] [--root DIR …]");
  const parsed = parseFlags(TokenFlags, flags);
  const roots = (parsed.root ?? []).map((root) => resolve(root));
  return `${await addToken(parsed.tokensFile, name, parsed.operator, roots)}\n`;
}
