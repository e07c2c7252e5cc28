// Reading the tokens file (at start and on SIGHUP) and `acp-session-host token add NAME`.
import { appendFile, readFile } from "node:fs/promises";
import { ConfigError } from "../flags.js";
import {
  hashToken,
  isTenantName,
  newToken,
  OPERATOR_COLUMN,
  parseTokens,
  ROOT_PREFIX,
  TokensFileError,
  type TokenEntry,
} from "./tokens.js";

export async function readTokensFile(path: string): Promise<TokenEntry[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(`--tokens-file ${path}: ${(error as Error).message}`);
  }
  try {
    return parseTokens(text);
  } catch (error) {
    if (error instanceof TokensFileError) throw new ConfigError(`--tokens-file ${path}: ${error.message}`);
    throw error;
  }
}

/**
 * Appends a fresh token's hash for the tenant (creating the file, mode 0600) and returns the token, shown once;
 * operator: the line is marked so (the token may read the host-wide figures); roots: absolute directories its
 * sessions may use.
 */
export async function addToken(
  path: string,
  tenant: string,
  operator = false,
  roots: readonly string[] = [],
): Promise<string> {
  if (!isTenantName(tenant))
    throw new ConfigError(`token add: tenant name must be 1-64 of A-Z a-z 0-9 . _ - (got ${JSON.stringify(tenant)})`);
  const existing = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw new ConfigError(`token add: ${path}: ${error.message}`);
  });
  try {
    parseTokens(existing);
  } catch (error) {
    if (error instanceof TokensFileError) throw new ConfigError(`token add: ${path}: ${error.message}`);
    throw error;
  }
  const token = newToken();
  const separator = existing === "" || existing.endsWith("\n") ? "" : "\n";
  const columns = [
    tenant,
    hashToken(token),
    ...(operator ? [OPERATOR_COLUMN] : []),
    ...roots.map((r) => ROOT_PREFIX + r),
  ];
  await appendFile(path, `${separator}${columns.join(" ")}\n`, { mode: 0o600 });
  return token;
}
