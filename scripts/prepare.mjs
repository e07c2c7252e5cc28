// npm's `prepare`: installed from a git URL, the package has no dist/ and npm runs this in its clone (with the
// devDependencies installed) before packing it, so it builds. In a checkout that has built once it does nothing:
// `npm ci` need not build, as `npm test`, `npm run demo` and `npm run bench` build first anyway. `npm pack` builds
// afresh whatever is there (prepack).
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(`${root}dist/src/cli.js`) || !existsSync(`${root}dist/workers/bundle/session-loader.js`))
  execSync("npm run --silent build", { cwd: root, stdio: "inherit" });
