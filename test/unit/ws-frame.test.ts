// A message framed once and written under ws to a client's socket arrives as that text message, whatever its length
// (each of the three length encodings) and however many bytes its characters take.
import { once } from "node:events";
import type { Socket } from "node:net";
import { expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { textFrame } from "../../src/remote/ws-frame.js";

it("arrives as the text it was built of, at every length encoding", async () => {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await once(server, "listening");
  const accepted = once(server, "connection") as Promise<[WebSocket, { socket: Socket }]>;
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as { port: number }).port}`);
  const [, request] = await accepted;
  await once(client, "open");
  const texts = ["é", "x".repeat(125), `${"ü".repeat(63)}!`, "€".repeat(30_000)];
  const received: string[] = [];
  const all = new Promise<void>((resolve) =>
    client.on("message", (data, isBinary) => {
      expect(isBinary).toBe(false);
      received.push(data.toString());
      if (received.length === texts.length) resolve();
    }),
  );
  for (const text of texts) request.socket.write(textFrame(text));
  await all;
  expect(received).toEqual(texts);
  client.close();
  server.close();
});
