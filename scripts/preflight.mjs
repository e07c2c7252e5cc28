// The start of `npm test`, once the build is done: is every part the suite runs for real here? One line per missing
// part with the command that installs it, and a non-zero exit, rather than dozens of tests failing far from the
// cause. The checks are the package's own (src/run/machine-checks.ts, which the demo runs too); scripts/setup
// installs the same parts: keep the two lists alike.
import { notOnPath, postgresProblem, sandboxProblem } from "../dist/src/run/machine-checks.js";

const problems = [
  sandboxProblem(),
  notOnPath("haproxy", "haproxy"),
  postgresProblem(),
  notOnPath("openssl", "openssl"),
  notOnPath("ps", "procps"),
  notOnPath("chromium", "chromium"),
].filter((problem) => problem !== null);
if (problems.length > 0) {
  console.error("npm test: this machine lacks what the tests run for real:");
  for (const problem of problems) console.error(`  ${problem.text}`);
  if (problems.some((problem) => problem.installs))
    console.error("  all that is missing at once, as root: scripts/setup");
  process.exit(1);
}
