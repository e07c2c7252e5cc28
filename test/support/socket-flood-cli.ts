// node dist/test/support/socket-flood-cli.js URL FROM SILENT SLOWLORIS TRICKLING: floods from the local address FROM
// until stdin ends, then prints how many of its sockets the host closed ("closed N"); meanwhile it says so every
// 250 ms ("closed so far N"), so a test can wait for the flood to have been renewed rather than guess how long it takes.
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
const progress = setInterval(() => console.log(`closed so far ${running.closed()}`), 250);
process.stdin.resume();
process.stdin.once("end", () => {
  clearInterval(progress);
  running.stop();
  console.log(`closed ${running.closed()}`);
  process.exit(0);
});
