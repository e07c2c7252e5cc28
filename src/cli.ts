#!/usr/bin/env node
// acp-session-host [serve] [flags]: the server (stdio, or --listen). acp-session-host run …: drive sessions through a
// host. acp-session-host token add NAME --tokens-file PATH: a tenant's new token. acp-session-host watch …: one
// session's live view.
import { readFileSync } from "node:fs";
import { ConfigError, configHelp, parseHostOptions } from "./host-options.js";
import { serve } from "./host/server.js";
import { demoCommand, demoUsage } from "./run/demo/demo-command.js";
import { runCommand } from "./run/run-command.js";
import { runUsage } from "./run/run-config.js";
import { statusCommand } from "./run/status-command.js";
import { tokenCommand } from "./remote/token-command.js";
import { watchCommand, watchUsage } from "./run/watch-command.js";

const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv[0]?.startsWith("-") || argv.length === 0 ? ["serve", ...argv] : argv;
  const ownArgs = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  if (command === "run") {
    if (ownArgs.includes("--help")) process.stdout.write(runUsage());
    else process.exitCode = await runCommand(rest);
    return;
  }
  if (command === "demo") {
    if (ownArgs.includes("--help")) process.stdout.write(demoUsage());
    else process.exitCode = await demoCommand(rest);
    return;
  }
  if (command === "status") {
    process.stdout.write(await statusCommand(rest));
    return;
  }
  if (command === "watch") {
    if (ownArgs.includes("--help")) process.stdout.write(watchUsage());
    else process.exitCode = await watchCommand(rest);
    return;
  }
  if (command === "token") {
    process.stdout.write(await tokenCommand(rest));
    return;
  }
  if (command === "store") {
    // node-postgres is loaded only by the commands that use it.
    const { storeCommand } = await import("./store/postgres/store-command.js");
    process.stdout.write(await storeCommand(rest));
    return;
  }
  if (rest.includes("--help") || command === "help") {
    process.stdout.write(
      `usage: acp-session-host [serve] [flags]\n       acp-session-host run [run flags] [-- host flags]   (see run --help)\n` +
        `       acp-session-host demo [--base-url URL --model NAME]   (a dozen sessions doing small real tasks at once, checked)\n` +
        `       acp-session-host token add NAME --tokens-file PATH [--operator]   (prints a new token for tenant NAME once, appends its hash)\n` +
        `       acp-session-host status --connect URL [--json]   (a listening host's _host/status; token from ACP_SESSION_HOST_TOKEN)\n` +
        `       acp-session-host watch (--connect URL | --state-dir DIR) SESSION_ID [--turns N | --from-start]   (a live view of one session, as an observer)\n` +
        `       acp-session-host store migrate --store postgres://…   (brings a PostgreSQL store's schema to this version and exits)\n` +
        `       acp-session-host store output --store postgres://… --session ID [--name NAME]   (a session's stored command outputs)\n\nflags:\n${configHelp()}\n`,
    );
    return;
  }
  if (command !== "serve") throw new ConfigError(`unknown command: ${command}`);
  await serve(parseHostOptions(rest), version);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    // One line, whatever the parser said (node's parseArgs explains some errors over several lines).
    process.stderr.write(`acp-session-host: ${error.message.replace(/\s*\n\s*/g, " ")}\n`);
    process.exit(2);
  }
  throw error;
});
