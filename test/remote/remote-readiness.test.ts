// GET /readyz: a host is ready once its standby pool holds the threads its last burst of session/new needed. Right
// after a burst it is "warming" (503) while /healthz stays 200; once the pool has started a thread for each session
// of the burst, it is ready again, and the pool holds them.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type HostClient } from "../../src/client/index.js";
import { connectHost } from "../support/checked-host.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, type RemoteHost } from "../support/remote-host.js";
import { waitFor } from "../support/tools.js";

const BURST = 12;
let host: RemoteHost;
let client: HostClient;

beforeAll(async () => {
  host = await startRemoteHost(["--warm-workers", "2"]);
  client = await connectHost(host.wsUrl);
});

afterAll(async () => {
  await client.dispose();
  await host.stop();
});

const probe = async (path: string) => {
  const response = await fetch(host.httpUrl.replace(/\/acp$/, path));
  return { status: response.status, body: (await response.json()) as { status: string; standby: number } };
};

it("answers 503 warming right after a burst, 200 once the pool holds a thread for each of its sessions", async () => {
  await waitFor("the first standby threads", async () => (await probe("/readyz")).status === 200);
  const cwd = tempDir();
  await Promise.all(Array.from({ length: BURST }, () => client.newSession(cwd)));
  // The burst's sessions take their threads just after their answers; the pool then wants as many started again.
  const warming = await waitFor("the host to say it is warming", async () => {
    const answer = await probe("/readyz");
    return answer.status === 503 ? answer : null;
  });
  expect(warming.body.status).toBe("warming");
  expect((await probe("/healthz")).status).toBe(200);
  const ready = await waitFor("the pool to refill for the burst", async () => {
    const answer = await probe("/readyz");
    return answer.status === 200 ? answer : null;
  });
  expect(ready.body.status).toBe("ok");
  expect(ready.body.standby).toBeGreaterThanOrEqual(BURST);
  expect((await client.stats()).threads.standby).toBeGreaterThanOrEqual(BURST);
});
