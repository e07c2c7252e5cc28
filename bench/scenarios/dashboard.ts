// Scenario 20: the dashboard (--dashboard) over many stored sessions, in Debian's chromium: "first page" is from the
// click on "Sign in" on the sessions view to its first row shown (the page opens its WebSocket, initializes and reads
// the first page of session/list; the host's listing index is built before, as a host that has run a while has it).
// "page size" is what the browser downloads of the page, gzipped, as the host serves it.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { UI_DIR } from "../../src/remote/dashboard/ui-files.js";
import { chromiumPath, launchChromium } from "../../test/support/browser.js";
import { startRemoteHost } from "../../test/support/remote-host.js";
import type { BenchContext, Skipped } from "../context.js";
import { repeat } from "../context.js";
import { fmt, plural, table } from "../support/markdown.js";
import { figure, type Figure } from "../support/stats.js";
import { writeStoredSessions } from "../support/stored-sessions.js";
import type { Scenario } from "../scenario.js";

export interface DashboardResult {
  runs: number;
  sessions: number;
  firstPageMs: Figure;
  gzippedKiB: number;
}

export async function dashboard(ctx: BenchContext): Promise<DashboardResult | Skipped> {
  try {
    chromiumPath();
  } catch {
    return { skipped: "no chromium (scripts/setup installs it)" };
  }
  const runs = ctx.quick ? 1 : 5;
  const sessions = ctx.quick ? 2_000 : 100_000;
  const stateDir = mkdtempSync(join(tmpdir(), "ash-bench-dashboard-"));
  try {
    writeStoredSessions(stateDir, sessions, [ctx.cwd]);
    // No tokens file (loopback): every connection sees every stored session, whatever token the page sends.
    const host = await startRemoteHost(["--state-dir", stateDir, "--dashboard", "--log-level", "info"]);
    const browser = await launchChromium();
    try {
      const origin = new URL(host.httpUrl).origin;
      // The index is built by the host's first session/list: the page's own first one is timed, not the build's.
      await fetch(`${origin}/ui/`);
      const warm = await browser.newPage();
      await signInToSessions(warm, origin);
      await warm.close();
      const measured = await repeat(ctx, `dashboard over ${sessions} sessions`, runs, async () => {
        const context = await browser.createBrowserContext();
        const page = await context.newPage();
        const ms = await signInToSessions(page, origin);
        await context.close();
        return ms;
      });
      return { runs, sessions, firstPageMs: figure(measured), gzippedKiB: gzippedPageKiB() };
    } finally {
      await browser.close();
      await host.stop();
    }
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

type Page = Awaited<ReturnType<Awaited<ReturnType<typeof launchChromium>>["newPage"]>>;

/** Opens the sessions view, signs in, and answers the time from the click to the first row shown (ms). */
async function signInToSessions(page: Page, origin: string): Promise<number> {
  await page.goto(`${origin}/ui/#/sessions`);
  await page.waitForSelector("#token");
  await page.type("#token", "bench");
  const clicked = performance.now();
  await page.click("#sign-in");
  await page.waitForSelector("tr.session-row");
  return performance.now() - clicked;
}

function gzippedPageKiB(): number {
  let bytes = 0;
  for (const name of readdirSync(UI_DIR)) bytes += gzipSync(readFileSync(join(UI_DIR, name))).length;
  return bytes / 1024;
}

export const scenario: Scenario<DashboardResult> = {
  order: 20,
  key: "dashboard",
  flag: "dashboard",
  title: "20. The dashboard's first page over many stored sessions",
  run: dashboard,
  section: (d) => [
    `${plural(d.runs, "run")} over ${d.sessions} stored sessions in headless chromium (a browser context each). ` +
      `First page: from the click on "Sign in" on the sessions view to its first row shown (goal ≤ 200 ms). ` +
      `Page: every file of dist/ui/ gzipped (goal ≤ 150 kB).`,
    "",
    table(["first page ms", "page kB gzipped"], [[fmt(d.firstPageMs), d.gzippedKiB.toFixed(1)]]),
  ],
};
