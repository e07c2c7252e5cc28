// node dist/test/support/socket-flood-cli.js URL FROM SILENT SLOWLORIS TRICKLING: floods from the local address FROM
// until stdin ends, then prints how many of its sockets the host closed.
import { flood } from "./socket-flood.js";

const [url, localAddress, silent, slowloris, tricklingBodies] = process.argv.slice(2);
const { hostname, port } = new URL(url!);
const running = flood({
  host: hostname,
  port: Number(port),
  localAddress: localAddress!,
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
