// npm run crash-loop -- [--kills N] [--sessions N] [--seed S]: the long kill -9 loop through the built host.
import { numberFlag } from "./args.js";
import { runCrashLoop } from "../test/support/crash-loop.js";

const argv = process.argv.slice(2);
const seed = numberFlag(argv, "seed", Math.floor(Math.random() * 2 ** 31));
const kills = numberFlag(argv, "kills", 50);
const sessions = numberFlag(argv, "sessions", 4);
console.log(`kill -9 loop: seed ${seed}, ${kills} kills, ${sessions} sessions`);
const report = await runCrashLoop({
  seed,
  kills,
  sessions,
  killAfterMs: [100, 2000],
  log: (line) => console.log(line),
});
const { failures, ...figures } = report;
console.log(JSON.stringify(figures));
for (const failure of failures) console.error(failure);
if (failures.length > 0) {
  console.error(`reproduce: npm run crash-loop -- --seed ${seed} --kills ${kills} --sessions ${sessions}`);
  process.exitCode = 1;
}
