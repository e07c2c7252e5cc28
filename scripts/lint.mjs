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
  ["types", "tsc", "-p", "tsconfig.lint.json"],
  ["the dashboard's types", "tsc", "-p", "ui/tsconfig.json"],
  ["ESLint and the thread boundary", "eslint", "."],
  ["Prettier", "prettier", "--check", ".", "--log-level", "warn"],
  ["import cycles", "dpdm", "--no-warning", "--no-tree", "--exit-code", "circular:1", ...ENTRIES],
];

// Each step takes from seconds to a minute and prints nothing when it passes: say what runs, and how long it took.
for (const [name, command, ...args] of STEPS) {
  process.stdout.write(`lint: ${name}…`);
  const started = performance.now();
  const { status, error } = spawnSync(command, args, { stdio: "inherit" });
  if (error) throw error;
  if (status !== 0) {
    process.stdout.write(` failed\n`);
    process.exit(status ?? 1);
  }
  process.stdout.write(` ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
