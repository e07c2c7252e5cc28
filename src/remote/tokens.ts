// The tokens file: one tenant a line, `tenant-name sha256-hex-of-token [operator] [weight=N] [root=/abs/dir …]` (a
// tenant may have several lines, one per token). `operator` marks a token of the host's operator: its connections may
// read the host-wide figures (`_host/stats`, `_host/status`). `weight=N` is the tenant's share of each model provider
// endpoint against the others' (1 unless a line of the tenant says otherwise). `root=` columns name directories the
// tenant's sessions may use; a tenant's roots are those of all its lines, so a token added while rotating keeps them.
// The file holds hashes only; a presented token is hashed and compared with every entry in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export interface TokenEntry {
  tenant: string;
  /** sha256 of the token, lowercase hex. */
  hash: string;
  /** The line's third column says `operator`. */
  operator: boolean;
  /** The line's `root=` columns: absolute paths as written. */
  roots: string[];
  /** The line's `weight=N`, when it has one. */
  weight?: number;
}

export const OPERATOR_COLUMN = "operator";
export const ROOT_PREFIX = "root=";

const TENANT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const HASH = /^[0-9a-f]{64}$/;
const WEIGHT = /^weight=\d+(\.\d+)?$/;

export class TokensFileError extends Error {}

/** Parses the file's text; blank lines and lines starting with # are skipped. Throws TokensFileError naming the line. */
export function parseTokens(text: string): TokenEntry[] {
  const entries: TokenEntry[] = [];
  const seen = new Set<string>();
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const fields = line.split(/\s+/);
    const [tenant, hash, ...rest] = fields;
    const roots = rest.filter((field) => field.startsWith(ROOT_PREFIX)).map((field) => field.slice(ROOT_PREFIX.length));
    const marks = rest.filter((field) => !field.startsWith(ROOT_PREFIX));
    const weights = marks.filter((mark) => WEIGHT.test(mark)).map((mark) => Number(mark.slice("weight=".length)));
    const operators = marks.filter((mark) => mark === OPERATOR_COLUMN).length;
    if (fields.length < 2 || !tenant || !hash || operators > 1 || weights.length > 1)
      throw new TokensFileError(
        `line ${index + 1}: expected "tenant-name sha256-hex [operator] [weight=N] [root=/dir …]"`,
      );
    if (marks.length !== operators + weights.length)
      throw new TokensFileError(
        `line ${index + 1}: the columns after the hash may only be "${OPERATOR_COLUMN}", "weight=N" or root=/dir`,
      );
    if (weights.some((weight) => !(weight > 0)))
      throw new TokensFileError(`line ${index + 1}: a weight is a number above 0`);
    const relative = roots.find((root) => !root.startsWith("/"));
    if (relative !== undefined)
      throw new TokensFileError(`line ${index + 1}: a root must be an absolute path (got ${JSON.stringify(relative)})`);
    if (!TENANT.test(tenant))
      throw new TokensFileError(
        `line ${index + 1}: tenant name must be 1-64 of A-Z a-z 0-9 . _ - (not starting with . _ -)`,
      );
    const lower = hash.toLowerCase();
    if (!HASH.test(lower))
      throw new TokensFileError(`line ${index + 1}: the hash must be 64 hex digits (sha256 of the token)`);
    if (seen.has(lower)) throw new TokensFileError(`line ${index + 1}: this hash is already on another line`);
    seen.add(lower);
    entries.push({
      tenant,
      hash: lower,
      operator: operators === 1,
      roots,
      ...(weights.length ? { weight: weights[0]! } : {}),
    });
  });
  return entries;
}

/** Each tenant's roots: those of all its lines, in the order written, once each. */
export function rootsByTenant(entries: readonly TokenEntry[]): Map<string, string[]> {
  const roots = new Map<string, string[]>();
  for (const entry of entries) {
    const list = roots.get(entry.tenant) ?? [];
    for (const root of entry.roots) if (!list.includes(root)) list.push(root);
    roots.set(entry.tenant, list);
  }
  return roots;
}

/** Each tenant's weight in the fair share of a model provider endpoint, where a line gives one (the last wins). */
export function tenantWeights(entries: readonly TokenEntry[]): Record<string, number> {
  const weights: Record<string, number> = {};
  for (const entry of entries) if (entry.weight !== undefined) weights[entry.tenant] = entry.weight;
  return weights;
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** A fresh random token (256 bits, base64url). */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

export function isTenantName(name: string): boolean {
  return TENANT.test(name);
}

/** The token of an `Authorization: Bearer …` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

/**
 * The entry whose hash is the token's, or null. Every entry is compared, each in constant time, so how long this
 * takes does not tell which entry (or how much of one) matched.
 */
export function matchToken(entries: readonly TokenEntry[], token: string): TokenEntry | null {
  const presented = Buffer.from(hashToken(token), "hex");
  let found: TokenEntry | null = null;
  for (const entry of entries) {
    if (timingSafeEqual(presented, Buffer.from(entry.hash, "hex")) && found === null) found = entry;
  }
  return found;
}
