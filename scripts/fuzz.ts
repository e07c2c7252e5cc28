// npm run fuzz -- [--runs N] [--seed S]: the long wire fuzz through the built host.
import { numberFlag } from "./args.js";
import { runWireFuzz } from "../test/support/wire-fuzz.js";

const argv = process.argv.slice(2);
const seed = numberFlag(argv, "seed", Math.floor(Math.random() * 2 ** 31));
const runs = numberFlag(argv, "runs", 500);
console.log(`wire fuzz: seed ${seed}, ${runs} runs`);
try {
  const report = await runWireFuzz({ seed, runs });
  console.log(JSON.stringify(report));
} catch (error) {
  console.error((error as Error).message);
  console.error(`reproduce: npm run fuzz -- --seed ${seed} --runs ${runs}`);
  process.exitCode = 1;
}
