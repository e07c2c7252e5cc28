// The protocol table (docs/protocol.md) against a real host: every capability it names is one initialize advertises and every
// one advertised is named; every client → host method it lists is served (whatever the params, never -32601), and
// every other ACP method is answered -32601 (method not found).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_METHODS } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli-path.js";
import { startHost, type TestHost } from "../support/host.js";

let host: TestHost;
beforeAll(async () => {
  host = await startHost();
});
afterAll(async () => {
  await host.dispose();
  expect(host.violations).toEqual([]);
});

/** The rows of docs/protocol.md's table: each row's cells. */
function protocolRows(): string[][] {
  return readFileSync(join(REPO_ROOT, "docs", "protocol.md"), "utf8")
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => line.split(" | ").map((cell) => cell.replace(/^\| /, "").replace(/ \|$/, "")));
}
const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

it("names exactly the capabilities initialize advertises", () => {
  const advertised = host.client.initializeResponse.agentCapabilities!;
  const named = new Set(protocolRows().flatMap((row) => ticked(row[2] ?? "")));
  const sessionCapabilities = [...named]
    .filter((name) => name.startsWith("sessionCapabilities."))
    .map((name) => name.slice("sessionCapabilities.".length));
  expect(sessionCapabilities.sort()).toEqual(Object.keys(advertised.sessionCapabilities ?? {}).sort());
  expect(named.has("loadSession")).toBe(advertised.loadSession === true);
  expect(named.has("mcpCapabilities.http")).toBe(advertised.mcpCapabilities?.http === true);
  expect(named.has("mode.override")).toBe(advertised.sessionCapabilities?.systemPrompt?.mode?.override != null);
});

it("lists every method the host serves, and the host serves no other", async () => {
  const listed = new Set(
    protocolRows()
      .filter((row) => row[1] === "client → host")
      .flatMap((row) => ticked(row[0]!))
      .filter((name) => /^[a-z_/]+$/.test(name) || name.startsWith("_host/")),
  );
  const served = async (method: string) => {
    try {
      await host.client.request(method, {});
      return true;
    } catch (error) {
      return (error as { code?: number }).code !== -32601;
    }
  };
  const notifications = new Set(["session/cancel"]);
  for (const method of listed)
    if (!notifications.has(method)) expect({ method, served: await served(method) }).toEqual({ method, served: true });
  for (const method of Object.values(AGENT_METHODS)) {
    if (listed.has(method) || notifications.has(method)) continue;
    expect({ method, served: await served(method) }).toEqual({ method, served: false });
  }
});
