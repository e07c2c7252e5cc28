// Authentication of the remote listener: bearer tokens from a tokens file of hashes, 401 with no detail, revocation
// on SIGHUP (new requests refused, the tenant's open connections closed), `token add`, and the refusal to serve a
// non-loopback address without a tokens file.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../../src/remote/tokens.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, tokensFile, transports, type RemoteHost } from "../support/remote-host.js";
import { waitFor } from "../support/tools.js";
import { upgradeStatus } from "../support/upgrade-status.js";
import { connectHost } from "../support/checked-host.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli.js", import.meta.url));
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {} },
};

async function postInitialize(
  url: string,
  authorization?: string,
): Promise<{ status: number; body: string; challenge: string | null }> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(authorization ? { Authorization: authorization } : {}),
    },
    body: JSON.stringify(INITIALIZE),
  });
  return { status: response.status, body: await response.text(), challenge: response.headers.get("www-authenticate") };
}

describe("a host with a tokens file", () => {
  let host: RemoteHost;
  let tokens: ReturnType<typeof tokensFile>;
  beforeAll(async () => {
    tokens = tokensFile(["alpha", "beta"]);
    host = await startRemoteHost(["--tokens-file", tokens.path]);
  });
  afterAll(async () => {
    expect(await host.stop()).toBe(0);
  });

  it("answers 401 with no detail to a request without a token or with a wrong one, and logs it without the token", async () => {
    for (const authorization of [
      undefined,
      "Bearer wrong-token-123",
      `Bearer ${hashToken(tokens.tokens.alpha!)}`,
      `Basic ${tokens.tokens.alpha}`,
    ]) {
      const answer = await postInitialize(host.httpUrl, authorization);
      expect(answer).toEqual({ status: 401, body: "", challenge: "Bearer" });
      expect(await upgradeStatus(host.wsUrl, authorization ? { Authorization: authorization } : {})).toBe(401);
    }
    expect(host.stderr()).toContain("unauthorized request refused");
    expect(host.stderr()).not.toContain("wrong-token-123");
    // The SDK's clients fail to connect.
    for (const { url } of transports) {
      await expect(connectHost(url(host), { token: "wrong-token-123" })).rejects.toThrow();
    }
  });

  it("accepts the right token on both transports", async () => {
    expect((await postInitialize(host.httpUrl, `Bearer ${tokens.tokens.alpha}`)).status).toBe(200);
    expect(await upgradeStatus(host.wsUrl, { Authorization: `Bearer ${tokens.tokens.beta}` })).toBe(101);
    for (const { url } of transports) {
      const client = await connectHost(url(host), { token: tokens.tokens.alpha! });
      const { sessionId } = await client.newSession(tempDir());
      expect((await client.prompt(sessionId, "hi")).text).toBe("You said: hi");
      await client.dispose();
    }
  });

  it("SIGHUP re-reads the file: a revoked token gets 401 and its open connections are closed; others go on", async () => {
    const alphaWs = await connectHost(host.wsUrl, { token: tokens.tokens.alpha! });
    const alphaHttp = await connectHost(host.httpUrl, { token: tokens.tokens.alpha! });
    const beta = await connectHost(host.wsUrl, { token: tokens.tokens.beta! });
    const { sessionId } = await beta.newSession(tempDir());
    const fresh = tokens.add("alpha");
    writeFileSync(
      tokens.path,
      readFileSync(tokens.path, "utf8")
        .split("\n")
        .filter((line) => !line.endsWith(hashToken(tokens.tokens.alpha!)))
        .join("\n"),
    );
    host.child.kill("SIGHUP");
    await Promise.all([alphaWs.closed, alphaHttp.closed]);
    expect((await postInitialize(host.httpUrl, `Bearer ${tokens.tokens.alpha}`)).status).toBe(401);
    expect(await upgradeStatus(host.wsUrl, { Authorization: `Bearer ${tokens.tokens.alpha}` })).toBe(401);
    expect((await beta.prompt(sessionId, "still here")).text).toBe("You said: still here");
    // The tenant's other token still works.
    const again = await connectHost(host.httpUrl, { token: fresh });
    await again.newSession(tempDir());
    await again.dispose();
    await beta.dispose();
    expect(host.stderr()).toContain("tokens file reloaded");
  });

  it("SIGHUP: a token moved to another tenant closes the connections it opened; reconnecting acts for the new tenant", async () => {
    const reloads = () => host.stderr().split("tokens file reloaded").length;
    const reload = async () => {
      const before = reloads();
      host.child.kill("SIGHUP");
      await waitFor("the tokens file to be reloaded", () => reloads() > before);
    };
    const token = tokens.add("gamma");
    await reload();
    const asGamma = await connectHost(host.wsUrl, { token });
    const { sessionId } = await asGamma.newSession(tempDir());
    writeFileSync(
      tokens.path,
      readFileSync(tokens.path, "utf8").replace(`gamma ${hashToken(token)}`, `delta ${hashToken(token)}`),
    );
    await reload();
    await asGamma.closed;
    const asDelta = await connectHost(host.wsUrl, { token });
    try {
      expect((await asDelta.list()).sessions.map((session) => session.sessionId)).not.toContain(sessionId);
      await expect(asDelta.resume(sessionId, tempDir())).rejects.toThrow(/unknown session/);
    } finally {
      await asDelta.dispose();
    }
  });
});

it("refuses a WebSocket upgrade from a page of another origin (403), even on loopback without a tokens file", async () => {
  const open = await startRemoteHost([]);
  try {
    expect(await upgradeStatus(open.wsUrl, { Origin: "https://elsewhere.example" })).toBe(403);
    expect(await upgradeStatus(open.wsUrl, { Origin: new URL(open.httpUrl).origin })).toBe(101);
    expect(await upgradeStatus(open.wsUrl)).toBe(101);
  } finally {
    expect(await open.stop()).toBe(0);
  }
});

describe("token add and listen refusals", () => {
  it("token add prints a fresh token once and appends only its hash", () => {
    const path = join(tempDir(), "tokens");
    const first = spawnSync(process.execPath, [CLI, "token", "add", "alpha", "--tokens-file", path], {
      encoding: "utf8",
    });
    const second = spawnSync(process.execPath, [CLI, "token", "add", "beta", "--tokens-file", path], {
      encoding: "utf8",
    });
    expect([first.status, second.status]).toEqual([0, 0]);
    const [a, b] = [first.stdout.trim(), second.stdout.trim()];
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const file = readFileSync(path, "utf8");
    expect(file).toBe(`alpha ${hashToken(a)}\nbeta ${hashToken(b)}\n`);
    expect(file).not.toContain(a);
    const bad = spawnSync(process.execPath, [CLI, "token", "add", "no spaces", "--tokens-file", path], {
      encoding: "utf8",
    });
    expect(bad.status).toBe(2);
  });

  it.each([
    [
      ["--listen", "0.0.0.0:0"],
      /^acp-session-host: --listen: 0\.0\.0\.0 is not a loopback address: refusing to serve it without --tokens-file\n$/,
    ],
    [["--listen", "[::]:0"], /^acp-session-host: --listen: :: is not a loopback address/],
    [["--listen", "127.0.0.1"], /^acp-session-host: --listen: must be HOST:PORT/],
    [["--tokens-file", "/nonexistent"], /^acp-session-host: --tokens-file: needs --listen\n$/],
    [
      ["--listen", "127.0.0.1:0", "--tls-cert", "/nonexistent"],
      /^acp-session-host: --tls-key: --tls-cert and --tls-key go together\n$/,
    ],
    [
      ["--listen", "127.0.0.1:0", "--tokens-file", "/nonexistent/tokens"],
      /^acp-session-host: --tokens-file \/nonexistent\/tokens: ENOENT/,
    ],
  ])("%j exits 2 with one line", (args, message) => {
    const result = spawnSync(process.execPath, [CLI, "serve", ...args, "--state-dir", tempDir()], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});
