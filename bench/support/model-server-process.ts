// Starts the OpenAI-compatible test server in a process of its own (bench/processes/model-server.ts), so no CPU figure of the
// host or the direct client includes the server's.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { OpenAiServerOptions } from "../../test/support/openai-server.js";

const SERVER = fileURLToPath(new URL("../processes/model-server.js", import.meta.url));

export interface ModelServer {
  url: string;
  close(): Promise<void>;
}

export async function modelServer(options: OpenAiServerOptions): Promise<ModelServer> {
  const child: ChildProcess = spawn(process.execPath, [SERVER, JSON.stringify(options)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const [data] = (await once(child.stdout!, "data")) as [Buffer];
  return {
    url: data.toString("utf8").trim(),
    close: async () => {
      child.stdin!.end();
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}
