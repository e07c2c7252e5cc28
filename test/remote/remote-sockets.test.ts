// Sockets that are not (yet) connections: silent and slow ones are closed by --handshake-timeout-ms, and at
// --max-connections (or --max-connections-per-address) the oldest of them makes room for a newcomer; a refused request ends
// its connection at once, answer first, whatever body it still trickles; a 413 reaches a client that wrote its headers
// and body in one go; what such clients do is logged once, then counted, per address; and refusals sent again as
// fast as they are answered (malformed, unauthorized, no such path) are answered at the address's pace. Another
// client's echoes are answered throughout.
import { connect, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { type HostClient } from "../../src/client/index.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, tokensFile, type RemoteHost } from "../support/remote-host.js";
import { openStalledClient } from "../support/stalled-client.js";
import { waitFor } from "../support/tools.js";
import { connectHost } from "../support/checked-host.js";

interface RawSocket {
  socket: Socket;
  /** Everything the host sent, as text. */
  received(): string;
  /** Resolves once the host has ended its side (FIN) or the socket closed. */
  ended: Promise<void>;
  closed: Promise<void>;
  isClosed(): boolean;
}

async function rawSocket(url: string, localAddress = "127.0.0.1"): Promise<RawSocket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), localAddress });
  let text = "";
  let closed = false;
  socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
  socket.on("error", () => {});
  const done = new Promise<void>((resolve) => socket.once("close", () => ((closed = true), resolve())));
  const ended = new Promise<void>((resolve) => socket.once("end", resolve).once("close", resolve));
  await new Promise<void>((resolve) => socket.once("connect", resolve).once("close", resolve));
  return { socket, received: () => text, ended, closed: done, isClosed: () => closed };
}

/** Echo after echo on its own connection until stopped; every one must be answered. */
function echoThroughout(client: HostClient, sessionId: string): { stop(): Promise<number> } {
  let running = true;
  let count = 0;
  const loop = (async () => {
    while (running) {
      expect((await client.prompt(sessionId, "ping")).text).toBe("You said: ping");
      count++;
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return count;
    },
  };
}

const lines = (log: string, msg: string) => log.split("\n").filter((line) => line.includes(`"msg":"${msg}"`)).length;

describe("sockets that never finish a request", () => {
  let host: RemoteHost;
  afterAll(async () => expect(await host.stop()).toBe(0));

  it(
    "are closed by --handshake-timeout-ms, and the oldest makes room for a newcomer at --max-connections",
    { timeout: 120_000 },
    async () => {
      host = await startRemoteHost([
        "--max-connections",
        "7",
        "--handshake-timeout-ms",
        "4000",
        "--max-connections-per-address",
        "0",
      ]);
      const other = await connectHost(host.wsUrl);
      const { sessionId } = await other.newSession(tempDir());
      const echoes = echoThroughout(other, sessionId);

      const silent = [];
      for (let i = 0; i < 3; i++) silent.push(await rawSocket(host.httpUrl));
      const slow = await Promise.all([1, 2, 3].map(() => rawSocket(host.httpUrl)));
      // Headers that never end: a byte now and then.
      const request = "GET /acp HTTP/1.1\r\nHost: x\r\nX-Slow: " + "a".repeat(1000);
      let sent = 0;
      const trickle = setInterval(() => {
        for (const { socket } of slow) if (!socket.destroyed) socket.write(request[sent % request.length]!);
        sent++;
      }, 100);
      try {
        // The echo client's socket and these six fill --max-connections: a newcomer takes the place of the oldest.
        const newcomer = await connectHost(host.wsUrl);
        await silent[0]!.closed;
        expect(silent[0]!.received()).toBe("");
        expect([...silent.slice(1), ...slow].map((raw) => raw.isClosed())).toEqual([false, false, false, false, false]);
        await waitFor("the eviction's log line", () => host.stderr().includes("socket closed to make room"));
        await newcomer.dispose();
        await Promise.all([...silent.slice(1), ...slow].map((raw) => raw.closed));
        // Node's own request timeout closed the others (408).
        for (const raw of [...silent.slice(1), ...slow]) expect(raw.received()).toMatch(/^HTTP\/1\.1 408/);
      } finally {
        clearInterval(trickle);
      }

      // A connection that has authenticated is not held to the handshake's budget: an HTTP client's event stream
      // outlives a silent socket opened after it.
      const http = await connectHost(host.httpUrl);
      const { sessionId: viaHttp } = await http.newSession(tempDir());
      const late = await rawSocket(host.httpUrl);
      await late.closed;
      expect((await http.prompt(viaHttp, "still here")).text).toBe("You said: still here");
      await http.dispose();
      expect(await echoes.stop()).toBeGreaterThan(0);
      await other.dispose();
    },
  );
});

describe("one address", () => {
  let host: RemoteHost;
  afterAll(async () => expect(await host.stop()).toBe(0));

  it(
    "holds at most --max-connections-per-address sockets, its oldest silent one making room; another address is not affected",
    { timeout: 60_000 },
    async () => {
      host = await startRemoteHost(["--max-connections-per-address", "2"]);
      const other = await connectHost(host.wsUrl);
      const { sessionId } = await other.newSession(tempDir());
      const held = [await rawSocket(host.httpUrl, "127.0.0.2"), await rawSocket(host.httpUrl, "127.0.0.2")];
      const third = await rawSocket(host.httpUrl, "127.0.0.2");
      await held[0]!.closed;
      expect([held[1]!.isClosed(), third.isClosed()]).toEqual([false, false]);
      await waitFor("the eviction's log line", () => host.stderr().includes("socket closed to make room"));
      expect((await other.prompt(sessionId, "unaffected")).text).toBe("You said: unaffected");
      for (const raw of [held[1]!, third]) raw.socket.destroy();
      await other.dispose();
    },
  );
});

describe("refused requests", () => {
  let host: RemoteHost;
  let token: string;
  afterAll(async () => expect(await host.stop()).toBe(0));

  it(
    "end their connection at once, the answer written first, however much body the client still trickles",
    { timeout: 60_000 },
    async () => {
      const tokens = tokensFile(["alpha"]);
      token = tokens.tokens.alpha!;
      host = await startRemoteHost(["--tokens-file", tokens.path, "--max-message-bytes", String(64 * 1024)]);
      for (const authorization of ["Bearer wrong", `Bearer ${token}`]) {
        const raw = await rawSocket(host.httpUrl);
        // A gigabyte declared (over --max-message-bytes for the right token, unauthorized for the wrong one).
        raw.socket.write(
          `POST /acp HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{`,
        );
        const trickle = setInterval(() => raw.socket.write(" "), 50);
        await raw.ended;
        clearInterval(trickle);
        raw.socket.destroy();
        expect(raw.received()).toMatch(
          authorization === "Bearer wrong"
            ? /^HTTP\/1\.1 401 .*\r\nConnection: close\r\n/s
            : /^HTTP\/1\.1 413 .*\r\nConnection: close\r\n/s,
        );
      }
    },
  );

  it("a 413 reaches a client that writes its headers and a large body in one go", { timeout: 60_000 }, async () => {
    const body = `{"pad":"${"z".repeat(2 * 1024 * 1024)}"}`;
    const statuses: string[] = [];
    for (let i = 0; i < 20; i++) {
      const raw = await rawSocket(host.httpUrl);
      raw.socket.write(
        `POST /acp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      // The host's answer, then its end of the connection; a reset instead would come as a close with nothing read.
      await raw.ended;
      statuses.push(raw.received().slice(0, 12));
      raw.socket.destroy();
    }
    expect(statuses).toEqual(Array.from({ length: 20 }, () => "HTTP/1.1 413"));
  });
});

describe("warnings a client can cause at will", () => {
  let host: RemoteHost;
  afterAll(async () => expect(await host.stop()).toBe(0));

  it("are logged once per address and kind, then counted", { timeout: 60_000 }, async () => {
    const tokens = tokensFile(["alpha"]);
    host = await startRemoteHost(["--tokens-file", tokens.path]);
    for (let i = 0; i < 200; i++) {
      const response = await fetch(host.httpUrl, {
        method: "POST",
        headers: { Authorization: "Bearer wrong" },
        body: "{}",
      });
      expect(response.status).toBe(401);
    }
    const client = await openStalledClient(host.wsUrl, { Authorization: `Bearer ${tokens.tokens.alpha}` });
    await client.call(0, "initialize", { protocolVersion: 1, clientCapabilities: {} });
    for (let i = 0; i < 200; i++) {
      client.send({ jsonrpc: "2.0", id: 1000 + i, result: {} });
      client.socket.write(binaryFrame());
    }
    // Still served, in order, after all of it.
    expect(await client.call(1, "session/list", {})).toMatchObject({ sessions: [] });
    // The repeats are counted once the period is over; by then every line of the floods has been written.
    const repeats = () =>
      host
        .stderr()
        .split("\n")
        .filter((line) => line.includes('"msg":"unauthorized request refused (repeated)"'))
        .reduce((sum, line) => sum + (JSON.parse(line) as { repeats: number }).repeats, 0);
    await waitFor("the repeats to be counted", () => repeats() === 199, 30_000);
    const log = host.stderr();
    expect(lines(log, "unauthorized request refused")).toBe(1);
    expect(lines(log, "response to no request of the host's dropped")).toBe(1);
    expect(lines(log, "binary WebSocket frame dropped (ACP is text frames)")).toBe(1);
    expect(log).not.toContain("Got response to unknown request");
    expect(log).not.toContain("Ignoring non-text ACP WebSocket frame");
    client.socket.destroy();
  });
});

/** A masked binary frame of four bytes. */
function binaryFrame(): Buffer {
  return Buffer.from([0x82, 0x84, 1, 2, 3, 4, 0, 0, 0, 0]);
}

describe("requests refused before they authenticate, each sent again as soon as it is answered", () => {
  let host: RemoteHost;
  afterAll(async () => expect(await host.stop()).toBe(0));

  it(
    "are all answered, past the address's --max-connections a second later (and logged), while another client's echoes go on",
    { timeout: 120_000 },
    async () => {
      const tokens = tokensFile(["alpha"]);
      host = await startRemoteHost([
        "--tokens-file",
        tokens.path,
        "--max-connections",
        "4",
        "--max-connections-per-address",
        "0",
      ]);
      const other = await connectHost(host.wsUrl, { token: tokens.tokens.alpha! });
      const { sessionId } = await other.newSession(tempDir());
      const echoes = echoThroughout(other, sessionId);
      const refusals: [request: string, answer: RegExp][] = [
        ["GARBAGE\r\n\r\n", /^HTTP\/1\.1 400 Bad Request\r\n/],
        ["GET /acp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\n\r\n", /^HTTP\/1\.1 401 /],
        ["GET /elsewhere HTTP/1.1\r\nHost: x\r\n\r\n", /^HTTP\/1\.1 404 /],
      ];
      // One at a time from one address, as a flood renews them, until the host says it delays them (the fifth, on
      // a machine that answers faster than a quarter of a second each).
      let sent = 0;
      while (!host.stderr().includes("refusal delayed")) {
        expect(sent).toBeLessThan(1000);
        const [request, answer] = refusals[sent++ % refusals.length]!;
        const raw = await rawSocket(host.httpUrl, "127.0.0.2");
        raw.socket.write(request);
        await raw.ended;
        expect(raw.received()).toMatch(answer);
        raw.socket.destroy();
      }
      expect(await echoes.stop()).toBeGreaterThan(0);
      await other.dispose();
    },
  );
});
