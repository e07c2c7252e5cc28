// The order in which an endpoint's waiting requests get room: fair between tenants (each tenant's share in
// proportion to its weight, equal by default), then between the session trees of a tenant (a parent and its children
// share one place), interactive trees before batch ones within their tenant. So one tenant's flood of a thousand
// sessions takes its share and no more, and a tenant's ten sessions are not queued behind it. A refused request goes
// back ahead of everyone: it had its turn already.
// Tenants are served by virtual time (start-time fair queuing): each request served adds 1/weight to its tenant's
// clock, the tenant with the earliest clock goes next, and a tenant that had nothing waiting comes back at the current
// clock, not with credit saved while it was idle.
import type { WaitQueue } from "./wait-queue.js";
import type { Share } from "../../src/protocol/gateway-asks.js";

export interface Shared {
  readonly share: Share;
}

/** Trees in turn: the first tree's first request goes, and its tree goes to the back of the ring. */
class TreeRing<T extends Shared> {
  readonly #trees = new Map<string, T[]>();

  get empty(): boolean {
    return this.#trees.size === 0;
  }

  push(item: T): void {
    const tree = this.#trees.get(item.share.tree);
    if (tree) tree.push(item);
    else this.#trees.set(item.share.tree, [item]);
  }

  peek(): T | undefined {
    for (const tree of this.#trees.values()) return tree[0];
    return undefined;
  }

  shift(): T | undefined {
    for (const [key, tree] of this.#trees) {
      const item = tree.shift();
      this.#trees.delete(key);
      if (tree.length > 0) this.#trees.set(key, tree);
      return item;
    }
    return undefined;
  }

  remove(item: T): boolean {
    const tree = this.#trees.get(item.share.tree);
    const index = tree?.indexOf(item) ?? -1;
    if (!tree || index < 0) return false;
    tree.splice(index, 1);
    if (tree.length === 0) this.#trees.delete(item.share.tree);
    return true;
  }

  *values(): Iterable<T> {
    for (const tree of this.#trees.values()) yield* tree;
  }
}

class TenantQueue<T extends Shared> {
  readonly interactive = new TreeRing<T>();
  readonly batch = new TreeRing<T>();
  clock = 0;

  get empty(): boolean {
    return this.interactive.empty && this.batch.empty;
  }

  ring(item: T): TreeRing<T> {
    return item.share.priority === "batch" ? this.batch : this.interactive;
  }

  next(): TreeRing<T> {
    return this.interactive.empty ? this.batch : this.interactive;
  }
}

export class FairQueue<T extends Shared> implements WaitQueue<T> {
  readonly #weight: (tenant: string | null) => number;
  readonly #ahead: T[] = [];
  readonly #tenants = new Map<string | null, TenantQueue<T>>();
  #clock = 0;
  #size = 0;

  /** `weight`: a tenant's share relative to the others' (1 each by default); read as requests arrive. */
  constructor(weight: (tenant: string | null) => number = () => 1) {
    this.#weight = weight;
  }

  get size(): number {
    return this.#size;
  }

  push(item: T): void {
    let tenant = this.#tenants.get(item.share.tenant);
    if (!tenant) {
      tenant = new TenantQueue<T>();
      tenant.clock = this.#clock;
      this.#tenants.set(item.share.tenant, tenant);
    }
    tenant.ring(item).push(item);
    this.#size++;
  }

  unshift(item: T): void {
    this.#ahead.unshift(item);
    this.#size++;
  }

  peek(): T | undefined {
    return this.#ahead[0] ?? this.#next()?.[1].next().peek();
  }

  shift(): T | undefined {
    const ahead = this.#ahead.shift();
    if (ahead) {
      this.#size--;
      return ahead;
    }
    const next = this.#next();
    if (!next) return undefined;
    const [name, tenant] = next;
    const item = tenant.next().shift()!;
    this.#size--;
    this.#clock = tenant.clock;
    tenant.clock += 1 / Math.max(Number.EPSILON, this.#weight(name));
    if (tenant.empty) this.#tenants.delete(name);
    return item;
  }

  remove(item: T): boolean {
    const index = this.#ahead.indexOf(item);
    if (index >= 0) {
      this.#ahead.splice(index, 1);
      this.#size--;
      return true;
    }
    const tenant = this.#tenants.get(item.share.tenant);
    if (!tenant || !tenant.ring(item).remove(item)) return false;
    this.#size--;
    if (tenant.empty) this.#tenants.delete(item.share.tenant);
    return true;
  }

  *values(): Iterable<T> {
    yield* this.#ahead;
    for (const tenant of this.#tenants.values()) {
      yield* tenant.interactive.values();
      yield* tenant.batch.values();
    }
  }

  /** The tenant with the earliest clock (the first to arrive among equals). */
  #next(): [string | null, TenantQueue<T>] | undefined {
    let best: [string | null, TenantQueue<T>] | undefined;
    for (const entry of this.#tenants) if (!best || entry[1].clock < best[1].clock) best = entry;
    return best;
  }
}
