// The listener's options from the host's flags, with the files they name read (before anything starts, so a bad
// file exits 2 with one line).
import { readFile } from "node:fs/promises";
import { ConfigError } from "../flags.js";
import type { HostOptions } from "../host-options.js";
import type { RemoteOptions } from "./listener.js";
import { readTokensFile } from "./token-file.js";
import type { TokenEntry } from "./tokens.js";
import { readUiFiles } from "./dashboard/ui-files.js";

export async function remoteOptions(
  config: HostOptions,
): Promise<{ options: RemoteOptions; tokens: TokenEntry[] | null } | null> {
  const listen = config.listen;
  if (!listen) return null;
  const tokensFile = config.tokensFile ?? null;
  const tokens = tokensFile ? await readTokensFile(tokensFile) : null;
  const certPath = config.tlsCert;
  const keyPath = config.tlsKey;
  const tls =
    certPath && keyPath ? { cert: await readPem("tls-cert", certPath), key: await readPem("tls-key", keyPath) } : null;
  return {
    tokens,
    options: {
      host: listen.host,
      port: listen.port,
      tokensFile,
      tls,
      maxConnections: config.maxConnections,
      maxConnectionsPerAddress: config.maxConnectionsPerAddress,
      maxConnectionsPerTenant: config.maxConnectionsPerTenant ?? Math.max(1, Math.floor(config.maxConnections / 2)),
      handshakeTimeoutMs: config.handshakeTimeoutMs,
      maxRequestsInFlight: config.maxRequestsInFlight,
      maxBufferedBytes: config.maxBufferedBytes,
      maxOutputStallMs: config.maxOutputStallMs,
      maxMessageBytes: config.maxMessageBytes,
      idleTimeoutMs: config.idleTimeoutMs,
      dashboard: config.dashboard ? await readUiFiles() : null,
    },
  };
}

async function readPem(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(`--${flag} ${path}: ${(error as Error).message}`);
  }
}
