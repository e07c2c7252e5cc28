// A peer's held writes (an observer's): what is written while held leaves together when the hold ends, and a
// controller's batch on the same peer lets what was held go first, so the batch is never held with it.
import { afterEach, expect, it, vi } from "vitest";
import { Peer } from "../../src/host/connection/peer.js";
import { WireMessage } from "../../src/host/connection/wire-message.js";

afterEach(() => void vi.useRealTimers());

function recordedPeer(): { peer: Peer; socket: string[] } {
  const socket: string[] = [];
  const peer = new Peer("1", null);
  peer.sendDirectly({
    send: (message, done) => {
      socket.push(message.json);
      done();
      return true;
    },
    cork: () => void socket.push("cork"),
    uncork: () => void socket.push("uncork"),
  });
  return { peer, socket };
}

it("holds writes until the hold ends, once however often it is asked; a batch lets the held ones go first", () => {
  vi.useFakeTimers();
  const { peer, socket } = recordedPeer();
  peer.holdDirectWrites(10);
  peer.writeDirectly(new WireMessage("a"), () => {});
  peer.holdDirectWrites(10);
  peer.writeDirectly(new WireMessage("b"), () => {});
  vi.advanceTimersByTime(9);
  expect(socket).toEqual(["cork", "a", "b"]);
  vi.advanceTimersByTime(1);
  expect(socket).toEqual(["cork", "a", "b", "uncork"]);

  socket.length = 0;
  peer.holdDirectWrites(10);
  peer.writeDirectly(new WireMessage("c"), () => {});
  const release = peer.batchingDirectWrites();
  peer.writeDirectly(new WireMessage("d"), () => {});
  release();
  vi.advanceTimersByTime(10);
  expect(socket).toEqual(["cork", "c", "uncork", "cork", "d", "uncork"]);
});
