// The dashboard in a real browser (Debian's chromium, puppeteer-core) against a real host with --dashboard and a
// tokens file: sign-in, a wrong token refused, the sessions of the token's tenant listed and another tenant's absent,
// a running turn streamed, a permission answered and a turn cancelled from the page, and output full of markup,
// a javascript: link and terminal escapes shown as text with nothing run. Every wait is on a DOM condition or an
// answer; each page's screenshot goes to docs/dashboard/ under `npm run screenshots` (docs/dashboard.md shows them).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "puppeteer-core";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import type { HostClient, PermissionPolicy } from "../../src/client/index.js";
import { launchChromium, screenshotForDocs, watchPage, type PageWatch } from "../support/browser.js";
import { connectHost } from "../support/checked-host.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, tokensFile, type RemoteHost } from "../support/remote-host.js";
import { bash, script } from "../support/tools.js";
import { upgradeStatus } from "../support/upgrade-status.js";

let host: RemoteHost;
let tokens: ReturnType<typeof tokensFile>;
let browser: Browser;
let origin: string;
const clients: HostClient[] = [];
/** The test's browser contexts: closed after it, so no page of one test still polls the host in the next. */
let contexts: BrowserContext[] = [];

beforeAll(async () => {
  tokens = tokensFile(["alice", "bob", "ops"], ["ops"]);
  [host, browser] = await Promise.all([
    startRemoteHost(["--tokens-file", tokens.path, "--dashboard", "--max-output-stall-ms", "600000"]),
    launchChromium(),
  ]);
  origin = new URL(host.httpUrl).origin;
}, 60_000);
afterEach(async () => {
  await Promise.all(contexts.map((context) => context.close()));
  contexts = [];
});
afterAll(async () => {
  await browser?.close();
  await Promise.all(clients.map((client) => client.dispose()));
  expect(await host.stop()).toBe(0);
});

async function client(token: string, permission: PermissionPolicy = "deny"): Promise<HostClient> {
  const connected = await connectHost(host.wsUrl, { token, permission });
  clients.push(connected);
  return connected;
}

/** A page of its own browser context (its own sessionStorage), watched from its first request. */
async function openPage(): Promise<{ page: Page; watch: PageWatch }> {
  const context = await browser.createBrowserContext();
  contexts.push(context);
  const page = await context.newPage();
  const watch = await watchPage(page, origin);
  await page.goto(`${origin}/ui/`);
  await page.waitForSelector("#token");
  return { page, watch };
}

async function signIn(token: string): Promise<{ page: Page; watch: PageWatch }> {
  const opened = await openPage();
  await opened.page.type("#token", token);
  await opened.page.click("#sign-in");
  await opened.page.waitForSelector("nav #sign-out");
  return opened;
}

async function openSession(page: Page, sessionId: string): Promise<void> {
  await goTo(page, `#/session/${encodeURIComponent(sessionId)}`);
  await textIs(page, "#attach-role", "observer");
}

async function takeControl(page: Page): Promise<void> {
  await page.click("#take-control");
  await textIs(page, "#attach-role", "controller");
}

// The page's own conditions are strings: this file is compiled without the DOM's types.
const goTo = (page: Page, hash: string) => page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
const textIs = (page: Page, selector: string, text: string) =>
  page.waitForFunction(`document.querySelector(${JSON.stringify(selector)})?.textContent === ${JSON.stringify(text)}`);
const transcriptHas = (page: Page, text: string) =>
  page.waitForFunction(`document.querySelector("#transcript")?.textContent?.includes(${JSON.stringify(text)})`);

const tenantOfRow = (page: Page, sessionId: string) =>
  page.$eval(`tr[data-session-id="${sessionId}"] .tenant`, (node) => node.textContent);

function expectClean(watch: PageWatch): void {
  expect(watch).toEqual({ dialogs: [], pageErrors: [], consoleErrors: [], policyViolations: [], strayRequests: [] });
}

it("serves the page with a strict Content-Security-Policy, and only with --dashboard's files", async () => {
  // The host's startup line names the page's address beside /acp's.
  const listening = host
    .stderr()
    .split("\n")
    .find((line) => line.includes('"msg":"acp-session-host listening"'));
  expect(JSON.parse(listening!)).toMatchObject({ url: `${origin}/acp`, dashboard: `${origin}/ui/` });
  const page = await fetch(`${origin}/ui/`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(page.headers.get("content-security-policy")).toBe(
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
      "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  );
  expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  expect(page.headers.get("referrer-policy")).toBe("no-referrer");
  const html = await page.text();
  expect(html).not.toMatch(/<script>|<style|\sstyle=|\son[a-z]+=/i);
  const script = await fetch(`${origin}/ui/app.js`);
  expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
  expect((await fetch(`${origin}/ui/../acp`)).status).not.toBe(200);
  expect((await fetch(`${origin}/ui/nothing.js`)).status).toBe(404);
  const bare = await fetch(`${origin}/ui`, { redirect: "manual" });
  expect([bare.status, bare.headers.get("location")]).toEqual([308, "/ui/"]);
  expect((await fetch(`${origin}/ui/`, { method: "POST" })).status).toBe(405);
});

it("without --dashboard there is no page, and a token offered as a subprotocol is no token", async () => {
  const plain = await startRemoteHost(["--tokens-file", tokens.path]);
  try {
    const plainOrigin = new URL(plain.httpUrl).origin;
    expect((await fetch(`${plainOrigin}/ui/`)).status).toBe(404);
    const offered = `acp.v1, base64url.bearer.acp-session-host.${Buffer.from(tokens.tokens.alice!).toString("base64url")}`;
    expect(await upgradeStatus(plain.httpUrl, { "Sec-WebSocket-Protocol": offered, Origin: plainOrigin })).toBe(401);
  } finally {
    expect(await plain.stop()).toBe(0);
  }
});

it("a wrong token is refused, and so is a right one offered by a page of another origin", async () => {
  const { page, watch } = await openPage();
  await screenshotForDocs(page, "sign-in");
  await page.type("#token", "not-a-token");
  await page.click("#sign-in");
  await page.waitForSelector("#sign-in-error");
  expect(await page.$eval("#sign-in-error", (node) => node.textContent)).toContain("refused");
  expect(await page.evaluate("sessionStorage.length")).toBe(0);
  // Chromium logs the refused handshake (401); nothing else.
  expect(watch.consoleErrors.every((line) => line.includes("WebSocket"))).toBe(true);
  expect({ ...watch, consoleErrors: [] }).toEqual({
    dialogs: [],
    pageErrors: [],
    consoleErrors: [],
    policyViolations: [],
    strayRequests: [],
  });
  await screenshotForDocs(page, "sign-in-refused");

  // The token, as a subprotocol or a header, from a page of another origin: refused before the token is looked at.
  const offered = `acp.v1, base64url.bearer.acp-session-host.${Buffer.from(tokens.tokens.alice!).toString("base64url")}`;
  const elsewhere = "https://elsewhere.example";
  expect(await upgradeStatus(host.httpUrl, { "Sec-WebSocket-Protocol": offered, Origin: elsewhere })).toBe(403);
  expect(
    await upgradeStatus(host.httpUrl, { Authorization: `Bearer ${tokens.tokens.alice!}`, Origin: elsewhere }),
  ).toBe(403);
  expect(await upgradeStatus(host.httpUrl, { "Sec-WebSocket-Protocol": offered, Origin: origin })).toBe(101);
});

it("lists the tenant's sessions, newest first, without another tenant's; the operator sees the host at a glance", async () => {
  const alice = await client(tokens.tokens.alice!);
  const bob = await client(tokens.tokens.bob!);
  const older = (await alice.newSession(tempDir())).sessionId;
  await alice.prompt(older, "the older session");
  const newer = (await alice.newSession(tempDir())).sessionId;
  await alice.prompt(newer, "the newer session");
  const bobs = (await bob.newSession(tempDir())).sessionId;
  await bob.prompt(bobs, "bob's own session");

  const { page, watch } = await signIn(tokens.tokens.alice!);
  // A tenant's token lands on its sessions: the host's page is the operator's, and not offered.
  await page.waitForSelector(`tr[data-session-id="${older}"]`);
  expect(await page.$("#nav-host")).toBeNull();
  expect(await page.$("#glance")).toBeNull();
  await page.waitForSelector(`tr[data-session-id="${newer}"]`);
  const listed = await page.$$eval("tr.session-row", (rows) => rows.map((row) => row.getAttribute("data-session-id")));
  expect(listed.indexOf(newer)).toBeLessThan(listed.indexOf(older));
  expect(listed).not.toContain(bobs);
  expect(await page.evaluate("document.body.textContent")).not.toContain(bobs);
  // Each row shows a short id, its state, turns, children and its last activity.
  const row = (id: string, cell: string) =>
    page.$eval(`tr[data-session-id="${id}"] ${cell}`, (node) => node.textContent);
  expect(await row(newer, "td.id")).toBe(newer.slice(0, 8));
  expect(await row(newer, ".state")).toBe("idle");
  expect(await row(newer, "td.turns")).toBe("1");
  expect(await row(newer, "td.children")).toBe("0");
  expect(await row(newer, "td.last-activity")).not.toBe("");
  await screenshotForDocs(page, "sessions");
  await page.type("#filter", "the NEWER");
  await page.waitForFunction(`document.querySelectorAll("tr.session-row").length === 1`);
  expect(await page.$eval("tr.session-row", (row) => row.getAttribute("data-session-id"))).toBe(newer);
  // Signing out forgets the token at once.
  expect(await page.evaluate("sessionStorage.length")).toBe(1);
  await page.click("#sign-out");
  await page.waitForSelector("#token");
  expect(await page.evaluate("sessionStorage.length")).toBe(0);
  expect(await page.$("#sign-in-error")).toBeNull();
  expectClean(watch);

  const operator = await signIn(tokens.tokens.ops!);
  await operator.page.waitForSelector("#tile-workers");
  // The charts are drawn from the host's own samples from the first paint: the turns ended before the page opened
  // are there in its first answer, not only what the page samples from now on.
  const firstPaint = await operator.page.$eval("#chart-turns", (chart) => ({
    points: Number(chart.getAttribute("data-points")),
    max: Number(chart.getAttribute("data-max")),
  }));
  expect(firstPaint.points).toBeGreaterThanOrEqual(2);
  expect(firstPaint.max).toBeGreaterThan(0);
  await operator.page.waitForFunction(`document.querySelectorAll("#glance .chart canvas").length >= 3`);
  // A card opens the sessions it counts.
  expect(await operator.page.$eval("a.tile.state-idle", (tile) => tile.getAttribute("href"))).toBe(
    "#/sessions?state=idle",
  );
  expect(await operator.page.$eval("#tile-workers .value", (node) => node.textContent)).toMatch(/^\d+ \/ \d+$/);
  await screenshotForDocs(operator.page, "host");

  // The operator sees every tenant's sessions, each naming its tenant, and narrows them to one tenant.
  await goTo(operator.page, "#/sessions");
  for (const id of [older, newer, bobs]) await operator.page.waitForSelector(`tr[data-session-id="${id}"]`);
  expect(await tenantOfRow(operator.page, bobs)).toBe("bob");
  expect(await tenantOfRow(operator.page, older)).toBe("alice");
  await operator.page.waitForFunction(
    `[...document.querySelectorAll("#tenant-filter option")].some((option) => option.value === "bob")`,
  );
  await operator.page.select("#tenant-filter", "bob");
  await operator.page.waitForFunction(
    `[...document.querySelectorAll("tr.session-row")].every((row) => row.querySelector(".tenant")?.textContent === "bob")`,
  );
  const narrowed = await operator.page.$$eval("tr.session-row", (rows) =>
    rows.map((row) => row.getAttribute("data-session-id")),
  );
  expect(narrowed).toContain(bobs);
  expect(narrowed).not.toContain(older);
  expect(narrowed).not.toContain(newer);
  await screenshotForDocs(operator.page, "sessions-operator");
  expectClean(operator.watch);
});

it("the live view streams a running turn", async () => {
  const alice = await client(tokens.tokens.alice!);
  const cwd = tempDir();
  const { sessionId } = await alice.newSession(cwd, { mode: "auto" });
  const { page, watch } = await signIn(tokens.tokens.alice!);
  await openSession(page, sessionId);
  const running = alice.prompt(
    sessionId,
    script(bash("echo waiting-for-the-gate; while [ ! -e gate ]; do sleep 0.05; done; echo through-the-gate"), {
      say: "the turn went on",
    }),
  );
  await transcriptHas(page, "waiting-for-the-gate");
  await textIs(page, "#turn-state", "turn running");
  await screenshotForDocs(page, "session-running");
  writeFileSync(join(cwd, "gate"), "");
  await transcriptHas(page, "the turn went on");
  expect((await running).stopReason).toBe("end_turn");
  await textIs(page, "#turn-state", "no turn running");
  expect(await page.$eval("#transcript", (node) => node.textContent)).toContain("through-the-gate");
  // A call is labelled with its tool's name, not ACP's kind of tool ("execute").
  expect(await page.$eval("#transcript .tool-call .tool-name", (node) => node.textContent)).toBe("bash");
  await screenshotForDocs(page, "session");
  // The page's own measure of each update, from its message's arrival to its render: printed, not asserted.
  const shown = (await page.evaluate(
    `performance.getEntriesByName("dashboard:update-shown").map((entry) => entry.duration)`,
  )) as number[];
  const sorted = [...shown].sort((a, b) => a - b);
  console.log(
    `dashboard: ${sorted.length} updates shown, arrival to render p50 ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)} ms, ` +
      `max ${sorted[sorted.length - 1]?.toFixed(1)} ms`,
  );
  expectClean(watch);
});

it("the live view shows a session's last 10 turns, and all of them from the start when asked", async () => {
  const alice = await client(tokens.tokens.alice!);
  const { sessionId } = await alice.newSession(tempDir());
  const said = (turn: number) => `You said: turn-${String(turn).padStart(2, "0")}`;
  for (let turn = 1; turn <= 12; turn++) await alice.prompt(sessionId, `turn-${String(turn).padStart(2, "0")}`);
  const { page, watch } = await signIn(tokens.tokens.alice!);
  await openSession(page, sessionId);
  await textIs(page, "#skipped-turns", `2 earlier turns not shown ("from the start" shows them)`);
  const lastTen = (await page.$eval("#transcript", (node) => node.textContent)) ?? "";
  expect(lastTen).toContain(said(3));
  expect(lastTen).toContain(said(12));
  expect(lastTen).not.toContain(said(1));
  expect(lastTen).not.toContain(said(2));
  await screenshotForDocs(page, "session-last-turns");

  await page.select("#replay-turns", "all");
  await transcriptHas(page, said(1));
  await textIs(page, "#attach-role", "observer");
  expect(await page.$("#skipped-turns")).toBeNull();
  const all = (await page.$eval("#transcript", (node) => node.textContent)) ?? "";
  // Each turn once: nothing of the attachment left behind is shown twice.
  for (let turn = 1; turn <= 12; turn++) expect(all.split(said(turn)).length - 1).toBe(1);

  // A turn after the choice streams as before.
  await alice.prompt(sessionId, "turn-13");
  await transcriptHas(page, said(13));
  expectClean(watch);
});

it("a long history is put in the page in windows: its newest entries, a large output only once opened, its end first", async () => {
  const alice = await client(tokens.tokens.alice!);
  const { sessionId } = await alice.newSession(tempDir(), { mode: "auto" });
  // 260 turns (520 entries), the last with 4 MB of output.
  for (let turn = 1; turn <= 259; turn++) await alice.prompt(sessionId, `turn-${turn}`);
  await alice.prompt(sessionId, script(bash("yes 0123456789abcdef | head -c 4000000; echo; echo the-very-end")));
  const { page, watch } = await signIn(tokens.tokens.alice!);
  await openSession(page, sessionId);
  await page.select("#replay-turns", "all");
  await page.waitForSelector("#show-earlier");
  const entries = () => page.$eval("#transcript", (node) => node.children.length);
  expect(await entries()).toBe(200);
  await page.click("#show-earlier");
  await page.waitForFunction(`document.querySelector("#transcript").children.length === 400`);
  // The large output is folded and not in the page until opened; opened, its end comes first.
  const output = "#transcript .tool-call details.folded";
  expect(await page.$eval(output, (node) => node.querySelector("pre"))).toBeNull();
  await page.click(`${output} summary`);
  await page.waitForSelector(`${output} pre`);
  const shown = (await page.$eval(`${output} pre`, (node) => node.textContent)) ?? "";
  expect(shown.length).toBe(64 * 1024);
  expect(shown).toContain("the-very-end");
  await page.click(`${output} button.show-all`);
  // All of it then (as much as the host sent of a command's output: its cap cuts the middle).
  await page.waitForFunction(
    `document.querySelector(${JSON.stringify(`${output} pre`)}).textContent.length > ${64 * 1024} && !document.querySelector(${JSON.stringify(`${output} button.show-all`)})`,
  );
  expectClean(watch);
}, 120_000);

it("a child session nests under its parent in the list, and opens from there and from the parent's live view", async () => {
  const alice = await client(tokens.tokens.alice!);
  const { sessionId: parent } = await alice.newSession(tempDir(), { mode: "auto" });
  const { page, watch } = await signIn(tokens.tokens.alice!);
  await openSession(page, parent);
  const result = await alice.prompt(
    parent,
    script({ tool: "spawn_agent", input: { prompt: script({ say: "the child's own answer" }) } }, { say: "done" }),
  );
  expect(result.children).toHaveLength(1);
  const child = result.children[0]!.sessionId;
  // Announced as it started (live), and named by its spawn_agent call's output (in a replay too).
  await page.waitForSelector(`#transcript .child-session[data-session-id="${child}"] a.child-link`);
  await page.waitForSelector(`#transcript .tool-call a.child-link[data-child-session-id="${child}"]`);
  await transcriptHas(page, "done");
  await page.click(`#transcript .tool-call a.child-link[data-child-session-id="${child}"]`);
  await textIs(page, "#session-live h2 code", child);
  await textIs(page, "#attach-role", "observer");
  await transcriptHas(page, "the child's own answer");

  await goTo(page, "#/sessions");
  await page.waitForSelector(`tr[data-session-id="${child}"][data-depth="1"]`);
  const order = await page.$$eval("tr.session-row", (rows) => rows.map((row) => row.getAttribute("data-session-id")));
  expect(order.indexOf(child)).toBe(order.indexOf(parent) + 1);
  await screenshotForDocs(page, "sessions-tree");
  const toggle = `tr[data-session-id="${parent}"] button.toggle`;
  await page.click(toggle);
  await page.waitForFunction(`document.querySelector('tr[data-session-id="${child}"]') === null`);
  await page.click(toggle);
  await page.click(`tr[data-session-id="${child}"] td.title a`);
  await textIs(page, "#session-live h2 code", child);
  await transcriptHas(page, "the child's own answer");
  expectClean(watch);
});

it("a session waiting for a permission stands out; the permission answered from the page lets the turn go on", async () => {
  // A session whose owner never answers: only the page can.
  const owner = await client(tokens.tokens.ops!, () => new Promise(() => {}));
  const { sessionId } = await owner.newSession(tempDir(), { mode: "ask" });
  const { page, watch } = await signIn(tokens.tokens.ops!);
  await openSession(page, sessionId);
  await takeControl(page);
  const running = owner.prompt(sessionId, script(bash("echo permitted-$((6*7))"), { say: "ran it" }));
  await page.waitForSelector(".permission .option-allow_once");
  // The session's view says its state, its mode (the menu too) and its model.
  await textIs(page, "#session-state", "waiting for permission");
  await textIs(page, "#session-mode", "mode ask");
  expect(await page.$eval("#mode", (select) => (select as unknown as { value: string }).value)).toBe("ask");
  expect(await page.$eval("#session-model", (node) => node.textContent)).toMatch(/^model \S+/);
  await screenshotForDocs(page, "permission");

  const list = await signIn(tokens.tokens.ops!);
  await goTo(list.page, "#/sessions");
  await list.page.waitForSelector(`tr.state-waiting[data-session-id="${sessionId}"]`);
  // Waiting for a permission comes first, whatever its last activity: someone must answer it.
  expect(await list.page.$eval("tr.session-row", (row) => row.getAttribute("data-session-id"))).toBe(sessionId);
  expect(await list.page.$eval(`tr[data-session-id="${sessionId}"] .state`, (node) => node.textContent)).toBe(
    "waiting for permission",
  );
  await screenshotForDocs(list.page, "sessions-waiting");
  expectClean(list.watch);

  await page.click(".permission .option-allow_once");
  const result = await running;
  expect(result.stopReason).toBe("end_turn");
  await transcriptHas(page, "permitted-42");
  await page.waitForFunction(`document.querySelector(".permission") === null`);
  expectClean(watch);
});

it("cancel from the page ends the running turn; a prompt and a mode from the page take effect", async () => {
  const owner = await client(tokens.tokens.alice!);
  const { sessionId } = await owner.newSession(tempDir(), { mode: "auto" });
  const { page, watch } = await signIn(tokens.tokens.alice!);
  await openSession(page, sessionId);
  await takeControl(page);
  const running = owner.prompt(sessionId, script(bash("echo looping; while true; do sleep 0.05; done")));
  await transcriptHas(page, "looping");
  await page.waitForSelector("#cancel-turn:not([disabled])");
  await page.click("#cancel-turn");
  expect((await running).stopReason).toBe("cancelled");
  await textIs(page, "#turn-state", "no turn running");

  await page.type("#prompt", "from the page");
  await page.click("#send");
  await transcriptHas(page, "You said: from the page");

  await page.select("#mode", "read-only");
  await page.waitForFunction(
    `[...document.querySelectorAll(".badge")].some((b) => b.textContent === "mode read-only")`,
  );
  expect(await page.$eval("#mode", (select) => (select as unknown as { value: string }).value)).toBe("read-only");
  expectClean(watch);
});

it("markup, a javascript: link and terminal escapes in a session's output are shown as text, and run nothing", async () => {
  const alice = await client(tokens.tokens.alice!);
  const cwd = tempDir();
  const { sessionId } = await alice.newSession(cwd, { mode: "auto" });
  const hostile =
    "<script>alert('script')</script> <img src=x onerror=alert('img')> " +
    "[click](javascript:alert('link')) <a href=\"javascript:alert('a')\">a link</a> " +
    "\u001b[31mred\u001b[0m \u001b]8;;javascript:alert('osc')\u0007osc link\u001b]8;;\u0007";
  writeFileSync(join(cwd, "hostile.txt"), hostile);
  await alice.prompt(sessionId, script(bash("cat hostile.txt"), { say: hostile }));
  const { page, watch } = await signIn(tokens.tokens.alice!);
  await openSession(page, sessionId);
  await transcriptHas(page, "<script>alert('script')</script>");
  const transcript = await page.$eval("#transcript", (node) => ({
    text: node.textContent ?? "",
    elements: [...node.querySelectorAll("script, img, a, iframe, object, embed")].length,
  }));
  expect(transcript.elements).toBe(0);
  expect(transcript.text).toContain("<img src=x onerror=alert('img')>");
  expect(transcript.text).toContain("javascript:alert('link')");
  expect(transcript.text).toContain("red");
  expect(transcript.text).not.toContain("\u001b");
  expect(await page.$$("body script, body img")).toHaveLength(0);
  await screenshotForDocs(page, "hostile-output");
  expectClean(watch);
});
