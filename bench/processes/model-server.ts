// The OpenAI-compatible test server in a process of its own, so that neither the host's nor the direct client's CPU
// figures include the server's. Prints its base URL on stdout; ends when its stdin closes.
// Usage: node dist/bench/processes/model-server.js '<OpenAiServerOptions as JSON>'
import { OpenAiTestServer, type OpenAiServerOptions } from "../../test/support/openai-server.js";

const server = await OpenAiTestServer.start(JSON.parse(process.argv[2] ?? "{}") as OpenAiServerOptions);
process.stdout.write(`${server.url}\n`);
process.stdin.resume();
process.stdin.on("end", () => void server.close().finally(() => process.exit(0)));
