// node dist/test/support/socket-flood-cli.js URL SILENT SLOWLORIS TRICKLING: floods until stdin ends, then prints
// how many of its sockets the host closed.
import { flood } from "./socket-flood.js";

const [url, silent, slowloris, tricklingBodies] = process.argv.slice(2);
const { hostname, port } = new URL(url!);
const running = flood({
  host: hostname,
  port: Number(port),
  silent: Number(silent),
  slowloris: Number(slowloris),
  tricklingBodies: Number(tricklingBodies),
});
console.log("flooding");
process.stdin.resume();
process.stdin.once("end", () => {
  running.stop();
  console.log(`closed ${running.closed()}`);
  process.exit(0);
});
