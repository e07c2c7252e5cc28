// The listener's options from the host's flags, with the files they name read (before anything starts, so a bad
// file exits 2 with one line).
import { readFile } from "node:fs/promises";
import { ConfigError } from "../flags.js";
import type { HostConfig } from "../host/config.js";
import type { RemoteOptions } from "./listener.js";
import { readTokensFile } from "./token-file.js";
import type { TokenEntry } from "./tokens.js";

export async function remoteOptions(
  config: HostConfig,
): Promise<{ options: RemoteOptions; tokens: TokenEntry[] | null } | null> {
  const listen = config.listen;
  if (!listen) return null;
  const tokensFile = config["tokens-file"] ?? null;
  const tokens = tokensFile ? await readTokensFile(tokensFile) : null;
  const certPath = config["tls-cert"];
  const keyPath = config["tls-key"];
  const tls =
    certPath && keyPath ? { cert: await readPem("tls-cert", certPath), key: await readPem("tls-key", keyPath) } : null;
  return {
    tokens,
    options: {
      host: listen.host,
      port: listen.port,
      tokensFile,
      tls,
      maxConnections: config["max-connections"],
      maxConnectionsPerAddress: config["max-connections-per-address"],
      maxConnectionsPerTenant:
        config["max-connections-per-tenant"] ?? Math.max(1, Math.floor(config["max-connections"] / 2)),
      handshakeTimeoutMs: config["handshake-timeout-ms"],
      maxRequestsInFlight: config["max-requests-in-flight"],
      maxBufferedBytes: config["max-buffered-bytes"],
      maxOutputStallMs: config["max-output-stall-ms"],
      maxMessageBytes: config["max-message-bytes"],
      idleTimeoutMs: config["idle-timeout-ms"],
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
