// One provider endpoint (base URL, model, key) as every session of the host shares it: a request is sent only when
// the endpoint has room (its concurrency window, its requests and tokens left in the current rate-limit window, no
// pause), else it waits here. A refusal (429) is not the request's failure: it shrinks the window, pauses the whole
// endpoint for as long as the provider asked (or a backoff when it did not say), with jitter on the way out, and the
// request goes back to the head of the queue. The wait is bounded by --model-queue-timeout-ms: past it the request
// fails as ProviderBusy. Everything else an attempt does (5xx, broken connections) is the session worker's to retry.
import { backoffMs } from "../models/retry.js";
import { ConcurrencyWindow } from "./concurrency-window.js";
import { rateHeaders, type RateLimit } from "./rate-headers.js";
import { RateEstimate } from "./rate-estimate.js";
import { FairQueue } from "./fair-queue.js";
import type { WaitQueue } from "./wait-queue.js";
import type { Share } from "../../src/protocol/gateway-asks.js";

/** The provider refused the request for its limits (HTTP 429): the scheduler sends it again. */
export class Refused extends Error {
  constructor(
    message: string,
    readonly headers: Headers | undefined,
  ) {
    super(message);
  }
}

/** The request waited longer than --model-queue-timeout-ms for room at its endpoint. */
export class ProviderBusy extends Error {}

export interface SchedulerOptions {
  /** --model-concurrency: the window's cap; null: learned. */
  cap: number | null;
  /** --model-queue-timeout-ms: how long a request may wait for room (0: as long as its turn lasts). */
  queueTimeoutMs: number;
  /** Told whenever what figures() says may have changed. */
  onChange?: () => void;
  /** Told of each refusal: the provider's words, the pause it set (ms from now) and the window after it. */
  onRefused?: (refusal: { message: string; pauseMs: number; window: number }) => void;
  random?: () => number;
  /** A tenant's weight in the fair share (1 unless the tokens file says otherwise). */
  weight?: (tenant: string | null) => number;
}

/** What one request waits for, and until when (epoch ms; null: until room frees up). */
export interface Waiting {
  what: "window" | "pause" | "requests" | "tokens";
  untilMs: number | null;
}

export interface Submission<T> {
  signal: AbortSignal;
  /** Whose request it is: its place in the fair share. */
  share: Share;
  /** Estimated tokens of the request, held against x-ratelimit-remaining-tokens (asked only when one was reported). */
  tokens(): number;
  /** Sends the request; rejects with Refused on a 429. `onHeaders` is given the response's headers. */
  send(onHeaders: (headers: Headers) => void): Promise<T>;
  /** Told when the request starts to wait (and again when what it waits for changes). */
  onWait?(waiting: Waiting): void;
  /** Told how long the request waited before each send (ms). */
  onWaited?(ms: number): void;
}

export interface EndpointFigures {
  window: number;
  cap: number | null;
  inFlight: number;
  queued: number;
  /** Epoch ms until which nothing is sent; null when not paused. */
  pausedUntilMs: number | null;
  /** Requests sent, and of them refused (429), since the gateway started. */
  sent: number;
  refused: number;
  /** Requests that waited past --model-queue-timeout-ms. */
  timedOut: number;
}

interface Ticket {
  share: Share;
  submission: Submission<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  deadlineMs: number | null;
  queuedAtMs: number;
  lastRefusal: string | null;
  timer: NodeJS.Timeout | null;
  told: string | null;
  tokens: number | null;
  /** In the queue (not in flight, not settled). */
  queued: boolean;
  detach(): void;
}

/** The pause's jitter: up to this share of it, so sessions paused together do not all come back together. */
const JITTER_SHARE = 0.2;
const JITTER_MAX_MS = 250;

export class EndpointScheduler {
  readonly #window: ConcurrencyWindow;
  readonly #queueTimeoutMs: number;
  readonly #onChange: () => void;
  readonly #onRefused: NonNullable<SchedulerOptions["onRefused"]>;
  readonly #random: () => number;
  readonly #queue: WaitQueue<Ticket>;
  #inFlight = 0;
  #pausedUntilMs = 0;
  #refusalsInARow = 0;
  #sent = 0;
  #refused = 0;
  #timedOut = 0;
  #tokensSent = 0;
  readonly #requests = new RateEstimate();
  readonly #tokens = new RateEstimate();
  /** A provider that reported a tokens limit: requests' tokens are estimated and counted from then on. */
  #countsTokens = false;
  #wake: NodeJS.Timeout | null = null;
  #lastTold = "";
  #wakeAtMs = 0;

  constructor(options: SchedulerOptions) {
    this.#window = new ConcurrencyWindow(options.cap);
    this.#queueTimeoutMs = options.queueTimeoutMs;
    this.#onChange = options.onChange ?? (() => {});
    this.#onRefused = options.onRefused ?? (() => {});
    this.#random = options.random ?? Math.random;
    this.#queue = new FairQueue<Ticket>(options.weight);
  }

  submit<T>(submission: Submission<T>): Promise<T> {
    submission.signal.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      const now = Date.now();
      const onAbort = () => {
        if (this.#queue.remove(ticket)) {
          ticket.queued = false;
          ticket.detach();
          reject(submission.signal.reason);
          this.#onChange();
        }
      };
      const ticket: Ticket = {
        share: submission.share,
        submission: submission as Submission<unknown>,
        resolve: resolve as (value: unknown) => void,
        reject,
        deadlineMs: this.#queueTimeoutMs > 0 ? now + this.#queueTimeoutMs : null,
        queuedAtMs: now,
        lastRefusal: null,
        timer: null,
        told: null,
        tokens: null,
        queued: true,
        detach: () => {
          submission.signal.removeEventListener("abort", onAbort);
          if (ticket.timer) clearTimeout(ticket.timer);
          ticket.timer = null;
        },
      };
      submission.signal.addEventListener("abort", onAbort, { once: true });
      if (ticket.deadlineMs !== null) ticket.timer = setTimeout(() => this.#expire(ticket), ticket.deadlineMs - now);
      this.#queue.push(ticket);
      this.#pump();
      const blocked = ticket.queued && ticket.told === null ? this.#blocked(now) : null;
      if (blocked) this.#tell(ticket, blocked, `${blocked.what}:${blocked.untilMs ?? ""}`);
    });
  }

  figures(): EndpointFigures {
    return {
      window: this.#window.size,
      cap: this.#window.cap,
      inFlight: this.#inFlight,
      queued: this.#queue.size,
      pausedUntilMs: this.#pausedUntilMs > Date.now() ? this.#pausedUntilMs : null,
      sent: this.#sent,
      refused: this.#refused,
      timedOut: this.#timedOut,
    };
  }

  #pump(): void {
    for (;;) {
      if (this.#queue.size === 0) break;
      const blocked = this.#blocked(Date.now());
      if (blocked) {
        this.#tellWaiting(blocked);
        if (blocked.untilMs !== null) this.#wakeAt(blocked.untilMs);
        break;
      }
      const next = this.#queue.shift()!;
      next.queued = false;
      this.#start(next);
    }
    this.#onChange();
  }

  /** What keeps the next request from being sent now, or null when it may go. */
  #blocked(now: number): Waiting | null {
    if (this.#pausedUntilMs > now) return { what: "pause", untilMs: this.#pausedUntilMs };
    if (this.#inFlight >= this.#window.size) return { what: "window", untilMs: null };
    const requests = this.#requests.left(this.#sent, now);
    if (requests !== null && requests.left <= 0) return { what: "requests", untilMs: requests.untilMs };
    const tokens = this.#tokens.left(this.#tokensSent, now);
    if (tokens !== null && tokens.left < this.#nextTokens()) return { what: "tokens", untilMs: tokens.untilMs };
    return null;
  }

  #nextTokens(): number {
    const head = this.#queue.peek();
    return head ? tokensOf(head) : 0;
  }

  #start(ticket: Ticket): void {
    const sentEpoch = this.#window.epoch;
    this.#inFlight++;
    this.#sent++;
    const seq = this.#sent;
    if (this.#countsTokens) this.#tokensSent += tokensOf(ticket);
    const tokensAt = this.#tokensSent;
    ticket.told = null;
    ticket.submission.onWaited?.(Date.now() - ticket.queuedAtMs);
    let headers: Headers | undefined;
    ticket.submission
      .send((received) => (headers = received))
      .then(
        (value) => {
          this.#inFlight--;
          this.#refusalsInARow = 0;
          this.#window.grow();
          this.#learn(headers, seq, tokensAt);
          this.#settle(ticket, () => ticket.resolve(value));
        },
        (error: unknown) => {
          this.#inFlight--;
          if (!(error instanceof Refused) || ticket.submission.signal.aborted)
            return this.#settle(ticket, () => ticket.reject(error));
          this.#refused++;
          this.#window.shrink(sentEpoch);
          this.#learn(error.headers, seq, tokensAt);
          this.#pauseFor(error.headers);
          this.#onRefused({
            message: error.message,
            pauseMs: Math.max(0, this.#pausedUntilMs - Date.now()),
            window: this.#window.size,
          });
          ticket.lastRefusal = error.message;
          if (ticket.deadlineMs !== null && Date.now() >= ticket.deadlineMs) {
            this.#busy(ticket);
            return this.#pump();
          }
          ticket.queuedAtMs = Date.now();
          ticket.queued = true;
          this.#queue.unshift(ticket);
          this.#pump();
        },
      );
  }

  #settle(ticket: Ticket, then: () => void): void {
    ticket.detach();
    then();
    this.#pump();
  }

  /** A refusal pauses the endpoint: for what the provider said, else a backoff that grows with refusals in a row. */
  #pauseFor(headers: Headers | undefined): void {
    const now = Date.now();
    const said = rateHeaders(headers, now);
    const resets = [said.requests, said.tokens]
      .filter((limit): limit is RateLimit => limit !== null && limit.remaining === 0 && limit.resetMs !== null)
      .map((limit) => limit.resetMs!);
    const waitMs = said.retryAfterMs ?? (resets.length > 0 ? Math.max(...resets) : backoffMs(this.#refusalsInARow));
    this.#refusalsInARow++;
    this.#pausedUntilMs = Math.max(this.#pausedUntilMs, now + waitMs + this.#jitter(waitMs));
  }

  /** The x-ratelimit-* headers of a response to the request sent as `seq` (after `tokensAt` tokens). */
  #learn(headers: Headers | undefined, seq: number, tokensAt: number): void {
    if (!headers) return;
    const now = Date.now();
    const said = rateHeaders(headers, now);
    const jitter = (waitMs: number) => this.#jitter(waitMs);
    if (said.requests) this.#requests.learn(said.requests, seq, this.#sent, now, jitter);
    if (said.tokens) {
      this.#countsTokens = true;
      this.#tokens.learn(said.tokens, tokensAt, this.#tokensSent, now, jitter);
    }
  }

  #jitter(waitMs: number): number {
    return Math.round(this.#random() * Math.min(JITTER_MAX_MS, waitMs * JITTER_SHARE));
  }

  /** The deadline came: a request still queued fails; one in flight is let finish (only its refusal ends it). */
  #expire(ticket: Ticket): void {
    if (!this.#queue.remove(ticket)) return;
    ticket.queued = false;
    this.#busy(ticket);
    this.#pump();
  }

  #busy(ticket: Ticket): void {
    this.#timedOut++;
    ticket.detach();
    const why = ticket.lastRefusal ? ` (its last answer: ${ticket.lastRefusal})` : "";
    ticket.reject(
      new ProviderBusy(
        `the provider had no room for the request within --model-queue-timeout-ms (${this.#queueTimeoutMs} ms)${why}`,
      ),
    );
  }

  /**
   * Each waiting request is told once what it waits for, and again when that changes to a pause or a rate limit with
   * a time; a window that stays full tells only the requests that arrived since (a queue of thousands is not walked
   * on every answer).
   */
  #tellWaiting(waiting: Waiting): void {
    const key = `${waiting.what}:${waiting.untilMs ?? ""}`;
    if (waiting.what !== "window" && key !== this.#lastTold) {
      this.#lastTold = key;
      for (const ticket of this.#queue.values()) this.#tell(ticket, waiting, key);
      return;
    }
    this.#lastTold = key;
    const head = this.#queue.peek();
    if (head) this.#tell(head, waiting, key);
  }

  #tell(ticket: Ticket, waiting: Waiting, key: string): void {
    if (ticket.told === key) return;
    ticket.told = key;
    ticket.submission.onWait?.(waiting);
  }

  #wakeAt(atMs: number): void {
    if (this.#wake && this.#wakeAtMs <= atMs) return;
    if (this.#wake) clearTimeout(this.#wake);
    this.#wakeAtMs = atMs;
    this.#wake = setTimeout(
      () => {
        this.#wake = null;
        this.#pump();
      },
      Math.max(0, atMs - Date.now()),
    );
  }
}

function tokensOf(ticket: Ticket): number {
  return (ticket.tokens ??= ticket.submission.tokens());
}
