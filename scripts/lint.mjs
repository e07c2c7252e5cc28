// npm run lint: types (tsc on the whole tree, and on the dashboard's ui/ with the DOM's types), ESLint (the rules and the thread boundaries of eslint.config.js),
// Prettier, and no import cycle from any entry point a process or thread starts at (dpdm). Stops at the first that fails.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

/** Every .ts file of a folder: the bench loads its scenarios at run time, so each is an entry of its own. */
const each = (dir) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(".ts"))
    .map((name) => `${dir}/${name}`);

/** Where a process or a thread starts: each one's import graph must be free of cycles. */
const ENTRIES = [
  "src/cli.ts",
  "src/client/index.ts",
  "src/spawner/main.ts",
  "workers/worker-bundle.ts",
  "workers/session-loader.ts",
  "workers/gateway/gateway-entry.ts",
  "workers/trace-export/export-entry.ts",
  "workers/mcp/mcp-client.ts",
  "bench/run.ts",
  "ui/main.tsx",
  ...each("bench/scenarios"),
  ...each("bench/processes"),
];

const STEPS = [
  ["tsc", "-p", "tsconfig.lint.json"],
  ["tsc", "-p", "ui/tsconfig.json"],
  ["eslint", "."],
  ["prettier", "--check", ".", "--log-level", "warn"],
  ["dpdm", "--no-warning", "--no-tree", "--exit-code", "circular:1", ...ENTRIES],
];

for (const [command, ...args] of STEPS) {
  const { status, error } = spawnSync(command, args, { stdio: "inherit" });
  if (error) throw error;
  if (status !== 0) process.exit(status ?? 1);
}
