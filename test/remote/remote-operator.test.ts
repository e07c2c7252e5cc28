// The host-wide figures are the operator's: on a host with tenants, `_host/stats` and `_host/status` answer only a
// connection whose token is marked `operator` in the tokens file. The operator sees every tenant's sessions (its
// status rows, model usage, session/list, an attach); a tenant sees only its own. `token add --operator` marks a
// token so; a token that loses the mark loses its connections.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { hashToken } from "../../src/remote/tokens.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, tokensFile } from "../support/remote-host.js";
import { connectHost } from "../support/checked-host.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli.js", import.meta.url));

it(
  "a tenant is refused _host/stats and _host/status and sees only its sessions; the operator gets them, and every tenant's sessions",
  { timeout: 60_000 },
  async () => {
    const tokens = tokensFile(["alpha", "ops"], ["ops"]);
    const host = await startRemoteHost(["--tokens-file", tokens.path]);
    const alpha = await connectHost(host.wsUrl, { token: tokens.tokens.alpha! });
    const ops = await connectHost(host.httpUrl, { token: tokens.tokens.ops! });
    try {
      const { sessionId: ofAlpha } = await alpha.newSession(tempDir());
      const { sessionId: ofOps } = await ops.newSession(tempDir());

      for (const request of [
        () => alpha.stats(),
        () => alpha.stats({ resetEventLoopDelay: true }),
        () => alpha.status(),
      ]) {
        await expect(request()).rejects.toMatchObject({
          code: -32600,
          data: expect.objectContaining({ reason: "OPERATOR_ONLY" }),
        });
      }
      // The tenant's own work is not affected.
      expect((await alpha.prompt(ofAlpha, "mine")).text).toBe("You said: mine");

      expect((await ops.stats()).sessions.live).toBe(2);
      await ops.prompt(ofOps, "the operator's own");
      await ops.prompt(ofOps, "and again");
      const status = await ops.status();
      expect(status.sessionRows.map((row) => row.sessionId).sort()).toEqual([ofAlpha, ofOps].sort());
      // Model usage by tenant and model: every tenant's.
      const tokensUsed = { prompt: 0, completion: 0, cached: 0 };
      expect([...status.usage].sort((a, b) => a.tenant!.localeCompare(b.tenant!))).toEqual([
        { tenant: "alpha", model: "scripted", requests: 1, errors: 0, tokens: tokensUsed },
        { tenant: "ops", model: "scripted", requests: 2, errors: 0, tokens: tokensUsed },
      ]);
      const listed = async (client: typeof ops) => (await client.list()).sessions.map((s) => s.sessionId);
      expect((await listed(ops)).sort()).toEqual([ofAlpha, ofOps].sort());
      expect(await listed(alpha)).toEqual([ofAlpha]);
      // Each listed session names its tenant: the operator tells whose a session is.
      const tenants = new Map(
        (await ops.list()).sessions.map((s) => [
          s.sessionId,
          (s._meta?.["acp-session-host"] as { tenant?: string }).tenant,
        ]),
      );
      expect(tenants).toEqual(
        new Map([
          [ofAlpha, "alpha"],
          [ofOps, "ops"],
        ]),
      );
      // The operator lists one tenant's sessions by asking; a tenant asking for another's is listed its own.
      const ofTenant = async (client: typeof ops, tenant: unknown) =>
        (await client.list({ _meta: { "acp-session-host": { tenant } } })).sessions.map((s) => s.sessionId);
      expect(await ofTenant(ops, "alpha")).toEqual([ofAlpha]);
      expect(await ofTenant(ops, "nobody")).toEqual([]);
      expect(await ofTenant(alpha, "ops")).toEqual([ofAlpha]);
      await expect(ofTenant(ops, 7)).rejects.toMatchObject({ code: -32602 });
      // The operator may watch a tenant's session; the tenant is told the operator's does not exist.
      await expect(ops.attach(ofAlpha)).resolves.toMatchObject({ role: "observer" });
      await expect(alpha.attach(ofOps)).rejects.toMatchObject({ code: -32002 });

      // Without the mark, the operator's token is a tenant's: its connections are closed, and it is refused anew.
      writeFileSync(
        tokens.path,
        readFileSync(tokens.path, "utf8").replace(
          `ops ${hashToken(tokens.tokens.ops!)} operator`,
          `ops ${hashToken(tokens.tokens.ops!)}`,
        ),
      );
      host.child.kill("SIGHUP");
      await ops.closed;
      const demoted = await connectHost(host.wsUrl, { token: tokens.tokens.ops! });
      await expect(demoted.stats()).rejects.toMatchObject({
        code: -32600,
        data: expect.objectContaining({ reason: "OPERATOR_ONLY" }),
      });
      await demoted.dispose();
    } finally {
      await alpha.dispose();
      await ops.dispose();
      expect(await host.stop()).toBe(0);
    }
  },
);

it("token add --operator writes the mark", () => {
  const path = join(tempDir(), "tokens");
  const added = spawnSync(process.execPath, [CLI, "token", "add", "ops", "--operator", "--tokens-file", path], {
    encoding: "utf8",
  });
  expect(added.status).toBe(0);
  expect(readFileSync(path, "utf8")).toBe(`ops ${hashToken(added.stdout.trim())} operator\n`);
});
