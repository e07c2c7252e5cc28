#!/usr/bin/env node
// acp-session-host [serve] [flags]: the stdio server.
import { readFileSync } from "node:fs";
import { ConfigError, configHelp, parseHostConfig } from "./host/config.js";
import { serve } from "./host/server.js";

const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv[0]?.startsWith("-") || argv.length === 0 ? ["serve", ...argv] : argv;
  if (rest.includes("--help") || command === "help") {
    process.stdout.write(`usage: acp-session-host [serve] [flags]\n\nflags:\n${configHelp()}\n`);
    return;
  }
  if (command !== "serve") throw new ConfigError(`unknown command: ${command}`);
  await serve(parseHostConfig(rest), version);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`acp-session-host: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
});
