// `acp-session-host run --connect URL` against a listening host (token from ACP_SESSION_HOST_TOKEN), over plain
// HTTP/WebSocket and over TLS (HTTPS/WSS with a self-signed certificate the client process is told to trust).
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { RunReport } from "../../src/run/summary.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, tokensFile } from "../support/remote-host.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli.js", import.meta.url));

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, "run", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

function selfSignedCertificate(): { cert: string; key: string } {
  const dir = tempDir("ash-tls-");
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  const made = spawnSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      key,
      "-out",
      cert,
    ],
    { encoding: "utf8" },
  );
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  return { cert, key };
}

describe("run --connect", () => {
  it("drives sessions through a listening host over WebSocket and HTTP with the token from the environment", async () => {
    const tokens = tokensFile(["ops"]);
    const host = await startRemoteHost(["--tokens-file", tokens.path]);
    try {
      for (const url of [host.wsUrl, host.httpUrl]) {
        const result = await run(
          // A tenant's sessions keep to its roots (the temp dir here), not the directory the run starts in.
          ["--connect", url, "--cwd", tempDir(), "--sessions", "3", "--turns", "2", "--prompt", "remote run", "--json"],
          { ACP_SESSION_HOST_TOKEN: tokens.tokens.ops! },
        );
        expect(result.code).toBe(0);
        const report = JSON.parse(result.stdout) as RunReport;
        expect(report.summary).toMatchObject({ sessions: 3, turns: 2, endTurn: 3, failed: 0 });
        expect(report.sessions.map((session) => session.firstLine)).toEqual(Array(3).fill("You said: remote run"));
      }
      const refused = await run(["--connect", host.wsUrl], { ACP_SESSION_HOST_TOKEN: "not-the-token" });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(new RegExp(`^acp-session-host run: cannot connect to ${host.wsUrl}: .+\\n$`));
    } finally {
      expect(await host.stop()).toBe(0);
    }
  });
});

describe("TLS", () => {
  it("serves HTTPS and WSS with --tls-cert/--tls-key", async () => {
    const { cert, key } = selfSignedCertificate();
    const host = await startRemoteHost(["--tls-cert", cert, "--tls-key", key]);
    try {
      expect(host.httpUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/acp$/);
      for (const url of [host.httpUrl, host.wsUrl]) {
        const result = await run(["--connect", url, "--sessions", "2", "--json"], { NODE_EXTRA_CA_CERTS: cert });
        expect({ url, code: result.code, stderr: result.stderr }).toEqual({ url, code: 0, stderr: "" });
        expect((JSON.parse(result.stdout) as RunReport).summary).toMatchObject({ sessions: 2, endTurn: 2, failed: 0 });
      }
      // Without trusting the certificate, the client refuses the host.
      const untrusted = await run(["--connect", host.httpUrl], {});
      expect(untrusted.code).toBe(1);
      // Plain HTTP to the TLS port is not served.
      await expect(fetch(host.httpUrl.replace("https:", "http:").replace(/\/acp$/, "/healthz"))).rejects.toThrow();
    } finally {
      expect(await host.stop()).toBe(0);
    }
  });
});
