// Sockets for the slot table's unit tests: an address, a port of their own, and a close that comes after destroy()
// as Node's does.
import { EventEmitter } from "node:events";
import type { Logger } from "../../src/logger.js";
import { RepeatedWarnings } from "../../src/remote/repeated-warnings.js";
import { SocketSlots, type SlotSocket } from "../../src/remote/socket-slots.js";

let nextPort = 1000;

export class FakeSocket extends EventEmitter implements SlotSocket {
  readonly remotePort = nextPort++;
  destroyed = false;
  constructor(readonly remoteAddress: string) {
    super();
  }
  destroy(): void {
    this.destroyed = true;
    queueMicrotask(() => this.emit("close"));
  }
}

/** One the slot table can stop (as it stops a lingering socket): whether it was paused. */
export class PausableSocket extends FakeSocket {
  paused = false;
  pause(): void {
    this.paused = true;
  }
}

const quiet = { warn: () => {} } as unknown as Logger;

export function socketSlots(maxSockets: number, maxPerAddress = 0, maxPerTenant = maxSockets): SocketSlots {
  return new SocketSlots({ maxSockets, maxPerAddress, maxPerTenant }, new RepeatedWarnings(quiet));
}
