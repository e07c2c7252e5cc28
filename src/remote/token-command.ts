// `acp-session-host token add NAME --tokens-file PATH`: prints a fresh token once; the file gets only its hash.
import { z } from "zod";
import { ConfigError, parseFlags } from "../flags.js";
import { addToken } from "./token-file.js";

const TokenFlags = z.object({ "tokens-file": z.string().min(1, "required").describe("the tokens file to append the new token's hash to") });

/** Returns what to print on stdout. */
export async function tokenCommand(argv: readonly string[]): Promise<string> {
  const [action, name, ...flags] = argv;
  if (action !== "add" || !name || name.startsWith("-")) throw new ConfigError("usage: acp-session-host token add NAME --tokens-file PATH");
  const file = parseFlags(TokenFlags, flags)["tokens-file"];
  return `${await addToken(file, name)}\n`;
}
