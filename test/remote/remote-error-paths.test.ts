// Errors a tenant is answered name none of the host's own paths or its store's address: the state dir (a dir store's
// unknown session names it), the tokens file and a PostgreSQL URL are replaced by a name for each before the answer
// leaves, and the host's log keeps the error as it was.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { connectHost } from "../support/checked-host.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, tokensFile, type RemoteHost } from "../support/remote-host.js";

describe("errors answered to a tenant", () => {
  let host: RemoteHost;
  let client: HostClient;
  let stateDir: string;
  let tokens: ReturnType<typeof tokensFile>;
  beforeAll(async () => {
    stateDir = tempDir("ash-secret-state-");
    tokens = tokensFile(["alice"]);
    host = await startRemoteHost(["--tokens-file", tokens.path, "--state-dir", stateDir]);
    client = await connectHost(host.wsUrl, { token: tokens.tokens.alice! });
  });
  afterAll(async () => {
    await client.dispose();
    expect(await host.stop()).toBe(0);
  });

  it("name neither the state dir nor the tokens file; the host's log does", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    const failure = await client.resume(unknown, tempDir()).then(
      () => null,
      (error: unknown) => error as { code: number; message: string; data: unknown },
    );
    expect(failure).not.toBeNull();
    expect(failure!.code).toBe(-32002);
    const told = JSON.stringify({ message: failure!.message, data: failure!.data });
    expect(told).toContain(unknown);
    expect(told).not.toContain(stateDir);
    expect(told).not.toContain(tokens.path);
    expect(told).toContain("<state dir>");
    expect(host.stderr()).toContain(stateDir);
  });
});
