// A controller whose connection drops mid-turn loses nothing: HostClient with reconnect re-attaches after the last
// event it applied, its prompt in flight still gets its answer, and nothing it saw is shown twice. Through a real host
// over WebSocket, behind a proxy that resets the connection at seeded random moments; an observer attached beside it,
// never cut, is the reference. What the host sends on each of the controller's connections is read before HostClient
// (which drops an update it has applied): a host that sent again what the client had would fail here.
import type { AnyMessage, SessionUpdate, Stream } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, expect, it } from "vitest";
import { HostClient } from "../../src/client/index.js";
import { compareEventPositions, parseEventId } from "../../src/protocol/event-id.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, type RemoteHost } from "../support/remote-host.js";
import { checkedStream, connectHost } from "../support/checked-host.js";
import { startCutProxy, type CutProxy } from "../support/cut-proxy.js";
import { seeded } from "../support/prng.js";
import { bash, script, waitFor } from "../support/tools.js";

const CUTS = 40;
let host: RemoteHost;
let proxy: CutProxy;

beforeAll(async () => {
  host = await startRemoteHost(["--default-mode", "auto"]);
  proxy = await startCutProxy(host.wsUrl);
});
afterAll(async () => {
  await proxy.close();
  expect(await host.stop()).toBe(0);
});

it(`a controller's connection cut mid-turn ${CUTS} times: every prompt answered, no update lost or repeated`, async () => {
  const random = seeded(50);
  let reconnections = 0;
  const wire = wireRecorder();
  const controller = await HostClient.connect(proxy.url(host.wsUrl), {
    reconnect: { initialDelayMs: 5, maxDelayMs: 50, onReconnect: () => reconnections++ },
    tap: wire.tap,
  });
  const observer = await connectHost(host.wsUrl);
  try {
    const { sessionId } = await controller.newSession(tempDir());
    const reference: SessionUpdate[] = [];
    observer.onSessionUpdate(sessionId, (update) => reference.push(update));
    let turnsEnded = 0;
    observer.onTurnEnded((ended) => void (ended.sessionId === sessionId && turnsEnded++));
    await observer.attach(sessionId);
    const seen: SessionUpdate[] = [];
    controller.onSessionUpdate(sessionId, (update) => seen.push(update));

    const answers: string[] = [];
    let cutMidTurn = 0;
    for (let turn = 0; turn < CUTS; turn++) {
      const steps = [
        { say: `turn ${turn} begins` },
        bash(`for i in 1 2 3; do echo ${turn}.$i; sleep 0.0$((RANDOM % 3)); done`),
        { say: `turn ${turn} saw {{result}}` },
      ];
      let answered = false;
      const answer = controller.prompt(sessionId, script(...steps)).finally(() => (answered = true));
      // A cut at a random moment of the turn (or just after it).
      await new Promise((resolve) => setTimeout(resolve, random.int(0, 40)));
      if (proxy.cut() > 0 && !answered) cutMidTurn++;
      const result = await answer;
      answers.push(result.stopReason);
    }
    expect(answers).toEqual(Array.from({ length: CUTS }, () => "end_turn"));
    expect(reconnections).toBeGreaterThan(CUTS / 2);
    expect(cutMidTurn).toBeGreaterThan(CUTS / 4);
    // An observer's updates may come a little after the controller's (its writes are held to leave together).
    await waitFor("the observer to have every turn's end", () => turnsEnded === CUTS);
    const last = reference.at(-1)!;
    await waitFor("the controller to have the last update", () =>
      seen.some((update) => update._meta?.eventId === last._meta?.eventId),
    );
    // Attached as a controller since it made the session, it is shown what the observer is: the same, once each.
    const ids = (updates: SessionUpdate[]) => updates.map((update) => update._meta?.eventId as string);
    expect(new Set(ids(seen)).size).toBe(seen.length);
    const missing = reference.filter((update) => !ids(seen).includes(update._meta?.eventId as string));
    expect(missing).toEqual([]);
    expect(seen).toEqual(reference);
    // On the wire: each connection's updates in order, none twice, and a re-attach's first after its cursor.
    expect(wire.violations).toEqual([]);
    expect(wire.connections.length).toBeGreaterThan(reconnections);
    for (const connection of wire.connections) {
      const positions = [connection.cursor, ...connection.received].filter((id) => id !== null).map(position);
      for (let i = 1; i < positions.length; i++)
        expect(compareEventPositions(positions[i - 1]!, positions[i]!), JSON.stringify(connection)).toBeLessThan(0);
    }
  } finally {
    await controller.dispose();
    await observer.dispose();
  }
}, 180_000);

const position = (id: string) => parseEventId(id) ?? [-1, -1, -1];

/** Each connection's stream, checked against the schema, and what crossed it: the cursor its attach named, the ids of the updates it received. */
function wireRecorder() {
  const violations: string[] = [];
  const connections: Array<{ cursor: string | null; received: string[] }> = [];
  const tap = (stream: Stream): Stream => {
    const connection = { cursor: null as string | null, received: [] as string[] };
    connections.push(connection);
    const checked = checkedStream(stream, violations);
    const writer = checked.writable.getWriter();
    const writable = new WritableStream<AnyMessage>({
      write(message) {
        const params = (message as { method?: string; params?: { replayFrom?: { type: string; eventId?: string } } })
          .params;
        if ((message as { method?: string }).method === "session/attach" && params?.replayFrom?.type === "after_event")
          connection.cursor = params.replayFrom.eventId ?? null;
        return writer.write(message);
      },
      close: () => writer.close(),
      abort: (reason: unknown) => writer.abort(reason),
    });
    const readable = checked.readable.pipeThrough(
      new TransformStream<AnyMessage, AnyMessage>({
        transform(message, controller) {
          const update = (message as { method?: string; params?: { update?: SessionUpdate } }).params?.update;
          if ((message as { method?: string }).method === "session/update" && update)
            connection.received.push(update._meta?.eventId as string);
          controller.enqueue(message);
        },
      }),
    );
    return { readable, writable };
  };
  return { tap, violations, connections };
}
