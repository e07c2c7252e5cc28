// The dashboard of a host in a fleet (two real hosts sharing a throwaway PostgreSQL store, Debian's chromium): the
// glance lists the fleet's hosts that hold sessions, as the store knows them, with how many each. Its screenshot goes
// to docs/dashboard/ under `npm run screenshots` (docs/dashboard.md shows it).
import type { Browser } from "puppeteer-core";
import { afterAll, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { launchChromium, screenshotForDocs, watchPage } from "../support/browser.js";
import { connectHost } from "../support/checked-host.js";
import { startHosts, type FleetHost } from "../support/fleet.js";
import { tempDir } from "../support/host.js";
import { postgresPerFile } from "../support/postgres.js";

const cluster = postgresPerFile();
let browser: Browser | undefined;
let hosts: FleetHost[] = [];
let client: HostClient | undefined;

afterAll(async () => {
  await browser?.close();
  await client?.dispose();
  await Promise.all(hosts.map((host) => host.stop("SIGTERM").catch(() => {})));
});

it("the glance of one host lists the fleet's hosts holding sessions, another host's among them", async () => {
  const url = await cluster.database();
  [hosts, browser] = await Promise.all([startHosts(2, url, ["--dashboard"]), launchChromium()]);
  const [h1, h2] = hosts as [FleetHost, FleetHost];
  client = await connectHost(h1.url);
  const { sessionId } = await client.newSession(tempDir());
  expect((await client.prompt(sessionId, "held by h1")).text).toBe("You said: held by h1");

  // h2's page, signed in on a loopback host without a tokens file (any token: the operator).
  const origin = `http://127.0.0.1:${h2.port}`;
  const page = await (await browser.createBrowserContext()).newPage();
  const watch = await watchPage(page, origin);
  await page.goto(`${origin}/ui/`);
  await page.type("#token", "operator");
  await page.click("#sign-in");
  await page.waitForFunction(
    `document.querySelector('#tile-fleet li[data-host-id="h1"]')?.textContent === "h1: 1 session"`,
  );
  expect(await page.$eval("#tile-fleet .value", (node) => node.textContent)).toBe("1 host");
  await screenshotForDocs(page, "host-fleet");
  expect(watch).toEqual({ dialogs: [], pageErrors: [], consoleErrors: [], policyViolations: [], strayRequests: [] });
});
