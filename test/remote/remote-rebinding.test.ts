// DNS rebinding against a host without a tokens file: a page at a name of the attacker's that resolves to 127.0.0.1
// sends that name as its Host, and an Origin that matches it. The host serves only Host headers that name a loopback
// address, so such a page reads nothing, on any path and either transport; a host with tokens is unchanged (its
// token authenticates). Every request here is a real one to a real host, the Host header set as a browser would.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACP_INITIALIZE, httpOnce } from "../support/http-once.js";
import { startRemoteHost, tokensFile, type RemoteHost } from "../support/remote-host.js";
import { upgradeStatus } from "../support/upgrade-status.js";

const ACP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

describe("a host without a tokens file and a rebound name", () => {
  let host: RemoteHost;
  let port: string;
  beforeAll(async () => {
    host = await startRemoteHost(["--dashboard"]);
    port = new URL(host.httpUrl).port;
  });
  afterAll(async () => {
    expect(await host.stop()).toBe(0);
  });

  it("refuses every path to a Host that names no loopback address (421), before reading it", async () => {
    const rebound = `attacker.example:${port}`;
    const acp = await httpOnce(host.httpUrl, "POST", { ...ACP_HEADERS, Host: rebound }, ACP_INITIALIZE);
    expect(acp.status).toBe(421);
    for (const path of ["/ui/", "/ui/app.js", "/healthz"])
      expect((await httpOnce(new URL(path, host.httpUrl).href, "GET", { Host: rebound })).status).toBe(421);
    // Its page's Origin matches its Host, so the same-origin check alone would let the upgrade through.
    expect(await upgradeStatus(host.wsUrl, { Host: rebound, Origin: `http://${rebound}` })).toBe(421);
  });

  it("serves a Host naming a loopback address, by number or as localhost", async () => {
    for (const name of [`127.0.0.1:${port}`, `localhost:${port}`, `127.0.0.2:${port}`]) {
      const acp = await httpOnce(host.httpUrl, "POST", { ...ACP_HEADERS, Host: name }, ACP_INITIALIZE);
      expect(acp.status, name).toBe(200);
      expect(await upgradeStatus(host.wsUrl, { Host: name, Origin: `http://${name}` }), name).toBe(101);
    }
    // The page on another port of the same address is another origin: refused (403), however loopback its Host.
    expect(await upgradeStatus(host.wsUrl, { Origin: `http://127.0.0.1:${Number(port) + 1}` })).toBe(403);
  });
});

describe("a host with a tokens file", () => {
  it("serves any Host: its token is what authenticates", async () => {
    const tokens = tokensFile(["alice"]);
    const host = await startRemoteHost(["--tokens-file", tokens.path]);
    try {
      const answer = await httpOnce(
        host.httpUrl,
        "POST",
        {
          ...ACP_HEADERS,
          Host: `agents.example:${new URL(host.httpUrl).port}`,
          Authorization: `Bearer ${tokens.tokens.alice!}`,
        },
        ACP_INITIALIZE,
      );
      expect(answer.status).toBe(200);
    } finally {
      expect(await host.stop()).toBe(0);
    }
  });
});
