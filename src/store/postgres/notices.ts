// How hosts sharing a PostgreSQL store talk about sessions: LISTEN/NOTIFY on one channel. A host that wants a
// session another live host holds asks it to let go (release), and hears back (released, or refused with why); a
// host that deletes a session tells its holder (deleted); a host that commits records says whose (appended). Every host hears every notice and keeps those about its
// own sessions. The listening connection is re-made whenever it breaks.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { z } from "zod";
import type { Logger } from "../../logger.js";

const SessionId = z.string().uuid();
const HostId = z.string().min(1);

export const Notice = z.discriminatedUnion("op", [
  z.object({ op: z.literal("release"), session: SessionId, from: HostId, owner: HostId, request: z.string() }),
  z.object({
    op: z.literal("released"),
    session: SessionId,
    from: HostId,
    to: HostId.optional(),
    request: z.string().optional(),
  }),
  z.object({
    op: z.literal("refused"),
    session: SessionId,
    from: HostId,
    to: HostId,
    request: z.string(),
    reason: z.string(),
  }),
  z.object({ op: z.literal("deleted"), session: SessionId, from: HostId }),
  /** Records of these sessions were committed (one notice per group commit): clients following them read them. */
  z.object({ op: z.literal("appended"), sessions: z.array(SessionId).min(1), from: HostId }),
]);
export type Notice = z.infer<typeof Notice>;

export type TakeoverAnswer = { kind: "released" } | { kind: "refused"; reason: string } | { kind: "timeout" };

const RECONNECT_MS = 500;

export class Notices {
  static readonly CHANNEL = "acp_session_host";
  readonly #url: string;
  readonly #logger: Logger;
  readonly #onNotice: (notice: Notice) => void;
  readonly #waiting = new Map<string, { session: string; settle(answer: TakeoverAnswer): void }>();
  #client: pg.Client | null = null;
  #stopped = false;
  #hostId = "";

  constructor(url: string, logger: Logger, onNotice: (notice: Notice) => void) {
    this.#url = url;
    this.#logger = logger;
    this.#onNotice = onNotice;
  }

  /** Listens from now on (throws if the database cannot be reached now). */
  async start(hostId = ""): Promise<void> {
    this.#hostId = hostId;
    await this.#listen();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const waiter of this.#waiting.values()) waiter.settle({ kind: "timeout" });
    await this.#client?.end().catch(() => {});
    this.#client = null;
  }

  async publish(notice: Notice): Promise<void> {
    const client = this.#client;
    if (!client) throw new Error("not listening to the store's notices");
    await client.query("SELECT pg_notify($1, $2)", [Notices.CHANNEL, JSON.stringify(notice)]);
  }

  /** Asks `owner` to let the session go; answers released, refused (with why) or timeout. */
  async ask(owner: string, session: string, timeoutMs: number): Promise<TakeoverAnswer> {
    const request = randomUUID();
    const answer = new Promise<TakeoverAnswer>((resolve) => {
      const timer = setTimeout(() => settle({ kind: "timeout" }), timeoutMs);
      const settle = (value: TakeoverAnswer) => {
        clearTimeout(timer);
        this.#waiting.delete(request);
        resolve(value);
      };
      this.#waiting.set(request, { session, settle });
    });
    try {
      await this.publish({ op: "release", session, from: this.#hostId, owner, request });
    } catch {
      // Unheard: the wait ends in a timeout, and the lease decides.
    }
    return answer;
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url, connectionTimeoutMillis: 5000 });
    client.on("notification", (message) => this.#heard(message.payload));
    client.on("error", (error) => {
      this.#logger.warn({ err: error }, "the store's notice connection broke: listening again");
      this.#relisten(client);
    });
    client.on("end", () => this.#relisten(client));
    await client.connect();
    await client.query(`LISTEN ${Notices.CHANNEL}`);
    this.#client = client;
  }

  #relisten(broken: pg.Client): void {
    if (this.#client !== broken || this.#stopped) return;
    this.#client = null;
    void broken.end().catch(() => {});
    const retry = (): void => {
      if (this.#stopped) return;
      this.#listen().catch(() => setTimeout(retry, RECONNECT_MS).unref());
    };
    setTimeout(retry, RECONNECT_MS).unref();
  }

  #heard(payload: string | undefined): void {
    let notice: Notice;
    try {
      notice = Notice.parse(JSON.parse(payload ?? ""));
    } catch {
      this.#logger.warn({ payload: payload?.slice(0, 200) }, "a malformed notice on the store's channel was ignored");
      return;
    }
    if (notice.op === "released" || notice.op === "refused") {
      for (const [request, waiter] of this.#waiting) {
        const mine =
          notice.request === request ||
          (notice.op === "released" && notice.request === undefined && waiter.session === notice.session);
        if (mine)
          waiter.settle(notice.op === "released" ? { kind: "released" } : { kind: "refused", reason: notice.reason });
      }
    }
    this.#onNotice(notice);
  }
}
