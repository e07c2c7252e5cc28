// Every socket the listener accepts holds one of --max-connections' slots (and one of its address's) until it
// closes. At the cap the newcomer is not refused: a socket that carries no authenticated request is closed to make
// room, as nginx reuses its idle keep-alive connections. First one that never carried one (its request's headers
// still coming, a refused request lingering, silence), the oldest of the address that holds the most such sockets
// (so a flood from one address evicts its own); then the one idle longest since its last authenticated request. Only
// when every slot carries an authenticated request (a WebSocket, an event stream, a request being answered) is the
// newcomer closed. A tenant's authenticated requests hold at most its share of the slots.
//
// An attacker that renews each socket as soon as it is closed turns eviction into a loop: its newcomer evicts its
// oldest, which comes back and evicts the next, as fast as the main thread accepts (each turn an accept, a close and
// the HTTP server's setup, on the thread that routes every session's prompts). A request refused before it
// authenticated (401, 404, or Node's parser's 400, 408, 431) is the same loop, answered and renewed. So each address
// has a budget of sockets the host closes at once, --max-connections a second (address-budget.ts); past it, an
// evicted socket that never carried an authenticated request, or a refused one, lingers: its slot is free at once
// (the newcomer has it, the cap is unchanged), but the socket is only stopped (nothing more is read from it) and
// closed (or answered) LINGER_MS later or after, by one sweep that closes at most --max-connections of them a second,
// so the attacker's renewals come as a drip, not in bursts. At most LINGER_CAP_FACTOR times --max-connections sockets linger at once (past that the
// oldest is closed at once): file descriptors stay bounded.
import type { Server, Socket } from "node:net";
import { AddressBudget } from "./address-budget.js";
import type { RepeatedWarnings } from "./repeated-warnings.js";

export interface SocketSlotOptions {
  maxSockets: number;
  /** 0: no cap. */
  maxPerAddress: number;
  /** Slots one tenant's requests hold at once. */
  maxPerTenant: number;
}

/** What the listener needs of a socket: Node's net.Socket, or the TLS socket over one (same address and port). */
export interface SlotSocket {
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
  destroy(): void;
  once(event: "close", listener: () => void): unknown;
  /** Stops reading (Node's socket); the HTTP parser reads from the handle, so it is stopped too. */
  pause?(): unknown;
  readonly _handle?: { readStop?(): unknown } | null;
}

/** How long a socket evicted (or refused) past the address's budget stays open, stopped, before it is closed. */
export const LINGER_MS = 1000;
/** Sockets lingering at once: this many times --max-connections. */
const LINGER_CAP_FACTOR = 4;
const SWEEP_MS = 100;

/** A lingering socket: when it is due, and what closes it (a refused request's answer, or destroy()). */
interface Lingering {
  until: number;
  close(): void;
}

interface Slot {
  readonly socket: SlotSocket;
  readonly key: string;
  readonly address: string;
  /** Authenticated requests it carries now (a WebSocket's lasts as long as the socket). */
  holds: number;
  tenant: string | null;
  /** It has carried an authenticated request. */
  proven: boolean;
}

interface AddressSlots {
  count: number;
  /** Insertion-ordered: the oldest first. */
  readonly unproven: Set<Slot>;
}

export type Release = () => void;

export class SocketSlots {
  readonly #options: SocketSlotOptions;
  readonly #warnings: RepeatedWarnings;
  /** By remote address and port: a TLS socket and the TCP socket under it are the same slot. */
  readonly #slots = new Map<string, Slot>();
  readonly #addresses = new Map<string, AddressSlots>();
  /** Proven sockets that carry nothing now, the longest idle first. */
  readonly #idle = new Set<Slot>();
  readonly #heldByTenant = new Map<string, number>();
  /** By address: the sockets the host may still close at once (addresses whose budget is whole go at the sweep). */
  readonly #budget: AddressBudget;
  /** Evicted or refused sockets not closed yet: the oldest first. */
  readonly #lingering = new Map<SlotSocket, Lingering>();
  #sweep: NodeJS.Timeout | null = null;

  constructor(options: SocketSlotOptions, warnings: RepeatedWarnings) {
    this.#options = options;
    this.#warnings = warnings;
    this.#budget = new AddressBudget(options.maxSockets);
  }

  /** Takes every socket the server accepts. */
  attach(server: Server): void {
    server.on("connection", (socket: Socket) => this.admit(socket));
  }

  get open(): number {
    return this.#slots.size;
  }

  /** Evicted or refused sockets that are stopped and not closed yet. */
  get lingering(): number {
    return this.#lingering.size;
  }

  /** Closes the lingering sockets now (the listener closes). */
  close(): void {
    for (const socket of this.#lingering.keys()) socket.destroy();
    this.#lingering.clear();
    if (this.#sweep) clearInterval(this.#sweep);
    this.#sweep = null;
  }

  /** A socket just accepted: it takes a slot, making room if it must; false: it was closed. */
  admit(socket: SlotSocket): boolean {
    const address = socket.remoteAddress ?? "";
    const own = this.#addresses.get(address);
    const { maxSockets, maxPerAddress } = this.#options;
    if (maxPerAddress > 0 && own && own.count >= maxPerAddress && !this.#evict(own)) {
      return this.#refuse(
        socket,
        "per address",
        { maxConnectionsPerAddress: maxPerAddress },
        "--max-connections-per-address",
      );
    }
    if (this.#slots.size >= maxSockets && !this.#evict(null)) {
      return this.#refuse(socket, "max-connections", { maxConnections: maxSockets }, "--max-connections");
    }
    const slot: Slot = { socket, key: slotKey(socket), address, holds: 0, tenant: null, proven: false };
    // The same address and port again before the old socket's close was seen: that one is gone.
    const stale = this.#slots.get(slot.key);
    if (stale) this.#free(stale);
    this.#slots.set(slot.key, slot);
    const slots = this.#addresses.get(address) ?? { count: 0, unproven: new Set<Slot>() };
    this.#addresses.set(address, slots);
    slots.count++;
    slots.unproven.add(slot);
    socket.once("close", () => this.#free(slot));
    return true;
  }

  /**
   * An authenticated request on this socket: its slot is not evicted until released. null: the tenant already holds
   * its share (the request is to be refused).
   */
  hold(socket: SlotSocket, tenant: string | null): Release | null {
    const slot = this.#slots.get(slotKey(socket));
    if (!slot) return () => {};
    if (slot.holds === 0) {
      if (tenant !== null && (this.#heldByTenant.get(tenant) ?? 0) >= this.#options.maxPerTenant) return null;
      slot.tenant = tenant;
      if (tenant !== null) this.#heldByTenant.set(tenant, (this.#heldByTenant.get(tenant) ?? 0) + 1);
      this.#addresses.get(slot.address)?.unproven.delete(slot);
      this.#idle.delete(slot);
      slot.proven = true;
    }
    slot.holds++;
    let released = false;
    return () => {
      if (released || this.#slots.get(slot.key) !== slot) return;
      released = true;
      if (--slot.holds > 0) return;
      this.#untenant(slot);
      this.#idle.add(slot);
    };
  }

  /**
   * A request refused before it authenticated (401, 404, the parser's 400, 408, 431): answered now while its address
   * has budget left; past it, the socket gives up its slot, is stopped, and is answered (answer() ends it) when the
   * sweep comes to it.
   */
  pace(socket: SlotSocket, answer: () => void): void {
    const address = socket.remoteAddress ?? "";
    if (this.#spend(address)) return answer();
    const slot = this.#slots.get(slotKey(socket));
    if (slot) this.#free(slot);
    this.#linger(socket, answer);
    this.#warnings.warn(
      address,
      "refusal delayed",
      { maxConnections: this.#options.maxSockets },
      "refusal delayed: the address's sockets are being closed faster than --max-connections a second",
    );
  }

  /** Every slot it could have is held: the newcomer is closed as it comes. */
  #refuse(socket: SlotSocket, kind: string, fields: Record<string, number>, flag: string): false {
    socket.destroy();
    this.#warnings.warn(
      socket.remoteAddress ?? "",
      `socket refused: ${kind}`,
      fields,
      `socket refused: ${flag} reached`,
    );
    return false;
  }

  /** Closes one evictable socket (of this address only, when given); false: none. */
  #evict(only: AddressSlots | null): boolean {
    let from: AddressSlots | null = only;
    if (!only)
      for (const slots of this.#addresses.values()) if (slots.unproven.size > (from?.unproven.size ?? 0)) from = slots;
    let victim: Slot | undefined = from?.unproven.values().next().value;
    if (!victim)
      for (const slot of this.#idle)
        if (!only || this.#addresses.get(slot.address) === only) {
          victim = slot;
          break;
        }
    if (!victim) return false;
    this.#free(victim);
    // One that carried an authenticated request is a client's idle keep-alive: closed at once, as it may reuse it.
    if (!victim.proven && !this.#spend(victim.address)) this.#linger(victim.socket, () => victim.socket.destroy());
    else victim.socket.destroy();
    this.#warnings.warn(
      victim.address,
      "socket evicted",
      { maxConnections: this.#options.maxSockets, authenticatedBefore: victim.proven },
      "socket closed to make room: it carried no authenticated request",
    );
    return true;
  }

  /** One of the address's budget, if it has any left (the sweep forgets it once its budget is whole again). */
  #spend(address: string): boolean {
    this.#sweeping();
    return this.#budget.take(address);
  }

  /** Stopped now, closed by the sweep LINGER_MS later (or at once, to keep the lingering ones bounded). */
  #linger(socket: SlotSocket, close: () => void): void {
    socket.pause?.();
    socket._handle?.readStop?.();
    this.#lingering.set(socket, { until: performance.now() + LINGER_MS, close });
    socket.once("close", () => this.#lingering.delete(socket));
    if (this.#lingering.size > LINGER_CAP_FACTOR * this.#options.maxSockets) {
      const [oldest, lingering] = this.#lingering.entries().next().value!;
      this.#lingering.delete(oldest);
      lingering.close();
    }
    this.#sweeping();
  }

  /** One timer for every lingering socket and address budget being spent, while there are any. */
  #sweeping(): void {
    this.#sweep ??= setInterval(() => this.#sweepNow(), SWEEP_MS).unref();
  }

  /** Closes the lingering sockets that are due, at most --max-connections a second: their renewals come as a drip. */
  #sweepNow(): void {
    const now = performance.now();
    let closing = Math.max(1, Math.ceil((this.#options.maxSockets * SWEEP_MS) / 1000));
    for (const [socket, lingering] of this.#lingering) {
      if (lingering.until > now || closing-- === 0) break;
      this.#lingering.delete(socket);
      lingering.close();
    }
    this.#budget.prune(now);
    if (this.#lingering.size === 0 && this.#budget.spending === 0 && this.#sweep) {
      clearInterval(this.#sweep);
      this.#sweep = null;
    }
  }

  #free(slot: Slot): void {
    if (this.#slots.get(slot.key) !== slot) return;
    this.#slots.delete(slot.key);
    this.#idle.delete(slot);
    if (slot.holds > 0) this.#untenant(slot);
    const slots = this.#addresses.get(slot.address);
    if (!slots) return;
    slots.unproven.delete(slot);
    if (--slots.count === 0) this.#addresses.delete(slot.address);
  }

  #untenant(slot: Slot): void {
    if (slot.tenant === null) return;
    const left = (this.#heldByTenant.get(slot.tenant) ?? 1) - 1;
    if (left === 0) this.#heldByTenant.delete(slot.tenant);
    else this.#heldByTenant.set(slot.tenant, left);
    slot.tenant = null;
  }
}

function slotKey(socket: SlotSocket): string {
  return `${socket.remoteAddress ?? ""} ${socket.remotePort ?? ""}`;
}
