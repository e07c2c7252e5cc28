// The MCP SDK's Transport over the session's spawner connection: the server process is started by the spawner in
// the session's sandbox and process group (never by this worker), its stdin and stdout streamed over the socket.
// Messages are newline-delimited JSON-RPC, as MCP's stdio transport says.
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { SpawnerConnection, StdioExit, StdioProcess, StdioRequest } from "../tools/spawner-connection.js";

/** A line longer than this is not a message any client could use: the server is broken. */
const MAX_LINE_CHARS = 64 * 1024 * 1024;
/** close() waits this long for the spawner to report the group gone before it says closed anyway. */
const CLOSE_WAIT_MS = 5000;

export class SpawnerStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #connection: SpawnerConnection;
  readonly #request: StdioRequest;
  #process: StdioProcess | null = null;
  #pending = "";
  #exit: StdioExit | null = null;
  #closing = false;
  #exited: () => void = () => {};
  readonly #whenExited = new Promise<void>((resolve) => (this.#exited = resolve));

  constructor(connection: SpawnerConnection, request: StdioRequest) {
    this.#connection = connection;
    this.#request = request;
  }

  /** How the process ended, once it has: for the error a caller sees. */
  get exit(): StdioExit | null {
    return this.#exit;
  }

  async start(): Promise<void> {
    const outcome = await this.#connection.openStdio(this.#request, {
      onStdout: (data) => this.#receive(data),
      onExit: (exit) => this.#onExit(exit),
    });
    if (outcome.kind === "error") throw new Error(outcome.message);
    this.#process = outcome.process;
    if (this.#closing) outcome.process.close();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#exit) throw new Error(`the server process has ended (${describeExit(this.#exit)})`);
    if (!this.#process) throw new Error("the server process is not started");
    this.#process.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (!this.#closing) {
      this.#closing = true;
      this.#process?.close();
    }
    if (!this.#process && !this.#exit) this.#onExit({ end: null, stderrTail: "", message: "closed before it started" });
    await Promise.race([this.#whenExited, new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS))]);
  }

  #receive(data: string): void {
    this.#pending += data;
    let newline = this.#pending.indexOf("\n");
    while (newline >= 0) {
      const line = this.#pending.slice(0, newline).replace(/\r$/, "");
      this.#pending = this.#pending.slice(newline + 1);
      if (line.trim().length > 0) this.#deliver(line);
      newline = this.#pending.indexOf("\n");
    }
    if (this.#pending.length > MAX_LINE_CHARS) {
      this.#pending = "";
      this.onerror?.(new Error(`the server wrote a line of more than ${MAX_LINE_CHARS} characters on stdout`));
    }
  }

  #deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      this.onerror?.(
        new Error(`the server wrote something that is not a JSON-RPC message on stdout: ${(error as Error).message}`),
      );
      return;
    }
    this.onmessage?.(message);
  }

  #onExit(exit: StdioExit): void {
    if (this.#exit) return;
    this.#exit = exit;
    this.#exited();
    this.onclose?.();
  }
}

/** "exit code 1", "killed by SIGSEGV", "the sandbox could not start: …", with the last of its stderr. */
export function describeExit(exit: StdioExit): string {
  const end = exit.end;
  let how = exit.message ?? "it ended";
  if (end) {
    // The detail of a start failure is the head of its stderr already.
    if (end.reason === "sandbox_failed" || end.reason === "spawn_failed") return end.detail ?? "it could not start";
    if (end.reason === "killed") how = "it was stopped";
    else how = end.signal ? `killed by ${end.signal}` : `exit code ${end.exitCode}`;
  }
  const tail = exit.stderrTail.trim();
  return tail ? `${how}; its stderr ends: ${tail.slice(-500)}` : how;
}
