// Test support: Debian's chromium driven by puppeteer-core (scripts/setup installs it), and a watch on a page for
// anything the dashboard must never do: open a dialog, throw, log an error, do what its Content-Security-Policy forbids
// (an eval, say), or ask another origin (or any file it does not ship) for anything.
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
}

export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    // As root (CI) Chromium runs only without its sandbox; the pages it opens are the test's own host's.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"],
    defaultViewport: { width: 1280, height: 900 },
  });
}

export interface PageWatch {
  dialogs: string[];
  pageErrors: string[];
  consoleErrors: string[];
  /** What the page's Content-Security-Policy blocked (directive and what it blocked): Chromium logs none of it. */
  policyViolations: string[];
  /** Requests to another origin, or to a path of the host's other than the page's own files and /acp. */
  strayRequests: string[];
}

/** The page's own files: anything else it asks for is a request it must not make. */
const PAGE_FILES = new Set(["/ui/", "/ui/app.js", "/ui/style.css", "/ui/uplot.css", "/ui/favicon.svg", "/acp"]);

export async function watchPage(page: Page, origin: string): Promise<PageWatch> {
  const watch: PageWatch = { dialogs: [], pageErrors: [], consoleErrors: [], policyViolations: [], strayRequests: [] };
  await page.exposeFunction("reportPolicyViolation", (violation: string) => watch.policyViolations.push(violation));
  await page.evaluateOnNewDocument(
    `document.addEventListener("securitypolicyviolation", (event) => reportPolicyViolation(event.violatedDirective + " " + event.blockedURI))`,
  );
  page.on("dialog", (dialog) => {
    watch.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => watch.pageErrors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") watch.consoleErrors.push(message.text());
  });
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol === "data:") return watch.strayRequests.push(request.url().slice(0, 80));
    const sameOrigin = url.host === new URL(origin).host;
    if (!sameOrigin || !PAGE_FILES.has(url.pathname)) watch.strayRequests.push(request.url());
  });
  return watch;
}

/** Where docs/dashboard.md's screenshots live: written only by `npm run screenshots`, so `npm test` leaves them be. */
const SHOTS = new URL("../../docs/dashboard/", import.meta.url);

/** Takes the page's screenshot (rendering it whole either way); writes it to docs/dashboard/ only when asked to. */
export async function screenshotForDocs(page: Page, name: string): Promise<void> {
  const png = await page.screenshot({ fullPage: true });
  if (process.env.DASHBOARD_SCREENSHOTS === "1") await writeFile(fileURLToPath(new URL(`${name}.png`, SHOTS)), png);
}
