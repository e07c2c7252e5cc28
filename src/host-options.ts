// The host's flags: one zod schema is the single source of names, defaults, validation and --help; parsed once into
// camelCase options (HostOptions), which is all the rest of the host reads.
import { homedir, hostname, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { ConfigError, flagsHelp, parseFlags, percent, type Options } from "./flags.js";
import { z } from "zod";
import { SessionModeId } from "./protocol/port.js";
import { isLoopback, ListenAddress } from "./remote/listen-address.js";

const int = (min: number) => z.coerce.number().int().min(min);
const flag = z.union([z.boolean(), z.enum(["true", "false"])]).transform((value) => value === true || value === "true");

export const HostFlags = z
  .object({
    "log-level": z
      .enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"])
      .default("info")
      .describe("stderr log level"),
    "max-sessions": int(1)
      .default(10_000)
      .describe(
        "sessions open in this host at once, with a worker or hibernated (the state dir may hold any number more)",
      ),
    "max-rss-mb": int(64)
      .default(Math.floor((totalmem() * 0.8) / 2 ** 20))
      .describe(
        "memory the host may use (RSS, MiB; default 80% of the machine's): idle sessions hibernate to stay below it, then new workers are refused",
      ),
    "max-live-workers": int(1)
      .default(256)
      .describe("session worker threads alive at once (beyond: least recently used idle session hibernates)"),
    "state-dir": z
      .string()
      .min(1)
      .transform((dir) => resolve(dir))
      .default(defaultStateDir())
      .describe("where session logs live ($XDG_STATE_HOME/acp-session-host, else ~/.local/state/acp-session-host)"),
    store: z
      .string()
      .min(1)
      .optional()
      .describe(
        "where sessions live: postgres://… or postgresql://… (PG* environment variables are honoured as libpq does) for one session space shared by a fleet of hosts; or a directory, the state dir (default: --state-dir)",
      ),
    "lease-ms": int(1000)
      .default(10_000)
      .describe(
        "with a PostgreSQL store: how long this host's hold on a session lasts unless renewed (renewed in the background); a dead host's sessions are taken over once it has passed",
      ),
    "drain-ms": int(0)
      .default(10_000)
      .describe(
        "with a PostgreSQL store: how long an ending host lets turns in flight run before it cancels them and gives its sessions up",
      ),
    "host-id": z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/, "letters, digits and . _ : - (at most 100)")
      .optional()
      .describe("this host's name in the store's leases, /healthz and logs (default: hostname-pid)"),
    "hibernate-after-ms": int(0)
      .default(60_000)
      .describe("release the worker of a session idle this long; its next prompt restores it from its log (0: never)"),
    "detached-close-ms": int(0)
      .default(60 * 60_000)
      .describe(
        "close a session whose connection went away and that no connection took over for this long (its log stays: resume or load it); 0: never",
      ),
    "max-attach-queue-bytes": int(64 * 1024)
      .default(8 * 1024 * 1024)
      .describe(
        "updates a client attached with session/attach may have on their way to it; one further behind is detached (OBSERVER_TOO_SLOW) and may attach again after its last event",
      ),
    "max-attachments": int(1)
      .default(256)
      .describe(
        "clients attached with session/attach to one session at once, and attachments one connection holds at once; past either, an attach is refused (TOO_MANY_ATTACHMENTS)",
      ),
    "list-page-size": int(1).default(100).describe("sessions per session/list page"),
    "warm-workers": int(0).default(4).describe("started worker threads kept ready for session/new, at least"),
    "max-warm-workers": int(0)
      .default(256)
      .describe(
        "started worker threads kept ready at most: as many as the largest burst of session/new of the last hour took (fading after five minutes), within --warm-budget-mb",
      ),
    "burst-memory-ms": int(1000)
      .default(300_000)
      .describe(
        "how long the standby pool keeps the threads of the largest burst of session/new whole; then half of them every twice this, none after twelve times this",
      ),
    "warm-budget-mb": int(0)
      .optional()
      .describe(
        "memory the started, unbound worker threads may take (MiB; default a quarter of --max-rss-mb): no thread is started ahead past it",
      ),
    "session-heap-mb": int(16).default(512).describe("old-generation heap limit of each session worker (MiB)"),
    "worker-nice": int(0)
      .max(19)
      .default(5)
      .describe(
        "how much higher session worker threads' nice value is than the main thread's: under a full CPU the main thread is served first; 0: the same",
      ),
    "cancel-grace-ms": int(0)
      .default(2000)
      .describe("how long a cancelled turn may take before its worker is terminated"),
    "max-delegation-depth": int(0)
      .default(2)
      .describe(
        "how deep child sessions (spawn_agent) may nest below a session a client made: 1 allows children, 2 grandchildren too; 0: none",
      ),
    "max-children": int(0)
      .default(16)
      .describe("child sessions one session may have open at once (spawn_agent); 0: none"),
    "max-turn-requests": int(1).default(50).describe("model requests one prompt may make"),
    "max-turn-tool-calls": int(1)
      .default(200)
      .describe("tool calls one prompt may run; past it the turn ends max_turn_requests"),
    "worker-stall-ms": int(0)
      .default(10_000)
      .describe(
        "end an idle session's worker that has not answered a ping for this long (its event loop is blocked); 0: no watchdog",
      ),
    "turn-timeout-ms": int(0)
      .default(30 * 60_000)
      .describe(
        "a turn running longer is cancelled as session/cancel would (then its worker is ended after --cancel-grace-ms); 0: none",
      ),
    "allow-fault-injection": flag
      .default(false)
      .describe("honour the scripted model's spin_ms, alloc_mb and crash steps"),
    "worker-entry": z
      .string()
      .min(1)
      .transform((path) => resolve(path))
      .optional()
      .describe(
        "run this module as the session worker instead of the host's own (fault injection: needs --allow-fault-injection)",
      ),
    "default-mode": z.enum(SessionModeId.options).default("ask").describe("mode of a new session"),
    "allow-full-access": flag.default(false).describe("offer the unsandboxed full-access mode"),
    "sandbox-network": flag.default(false).describe("let sandboxed commands use the network"),
    "bwrap-path": z.string().optional().describe("bubblewrap binary for the sandbox (default: bwrap found on PATH)"),
    "runtime-dir": z
      .string()
      .min(1)
      .transform((dir) => resolve(dir))
      .optional()
      .describe(
        "where the spawner keeps its socket and commands' output while they run (default: $XDG_RUNTIME_DIR or /dev/shm with 1 GiB free, else the temp dir)",
      ),
    "mcp-startup-timeout-ms": int(1)
      .default(10_000)
      .describe(
        "a session's first prompt waits this long for its MCP servers still connecting; then it runs without them",
      ),
    "max-background-tasks": int(1).default(8).describe("background bash tasks per session"),
    "output-cap-bytes": int(1024)
      .default(64 * 1024)
      .describe("tool output returned to the model (bytes)"),
    "model-provider": z
      .enum(["scripted", "openai-compatible", "deepseek"])
      .default("scripted")
      .describe("the embedded scripted model, any OpenAI-compatible endpoint, or DeepSeek (a preset of the latter)"),
    "base-url": z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
      .optional()
      .describe("chat-completions endpoint, e.g. http://127.0.0.1:8000/v1 (deepseek: https://api.deepseek.com)"),
    model: z.string().min(1).optional().describe("model of a new session (deepseek: deepseek-chat)"),
    models: z
      .string()
      .optional()
      .describe("comma-separated models a session may switch to (config option `model`); --model is always one"),
    "api-key-env": z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name")
      .optional()
      .describe("environment variable holding the API key (OPENAI_API_KEY; deepseek: DEEPSEEK_API_KEY)"),
    "model-retries": int(0)
      .default(3)
      .describe("retries of a model request after a 5xx or a broken connection (a 429 waits instead)"),
    "model-concurrency": int(1)
      .optional()
      .describe(
        "model requests in flight at once per endpoint (base URL, model, key); unset: learned from the provider's 429s",
      ),
    "model-queue-timeout-ms": int(0)
      .default(300_000)
      .describe(
        "how long a model request may wait for room at its endpoint (window, pause, rate limits); past it the turn fails PROVIDER_BUSY (0: no limit)",
      ),
    "model-price": z
      .string()
      .regex(/^\d+(\.\d+)?,\d+(\.\d+)?,\d+(\.\d+)?$/, "must be INPUT,CACHED,OUTPUT: US dollars per million tokens")
      .optional()
      .describe(
        "the model's prices, US dollars per million tokens: input,cached input,output (e.g. 0.27,0.07,1.10): usage_update's cost",
      ),
    "session-budget-tokens": int(1)
      .optional()
      .describe(
        "a session tree's token budget when session/new gives none: a model request that would pass it is not sent, the turn ends max_tokens (BUDGET_REACHED)",
      ),
    "model-idle-timeout-ms": int(0)
      .default(120_000)
      .describe(
        "a model stream that sends no byte this long is aborted and retried like a broken connection (0: no limit)",
      ),
    "context-window": int(1)
      .optional()
      .describe(
        "the model's context window (tokens): usage_update's size and the compaction threshold's base (known per model, else 128000)",
      ),
    "compact-at": percent(10, 100)
      .default(80)
      .describe(
        "compact the conversation before a request estimated above this share of the context window: 80, 80% or 0.8 (a number up to 1 is a fraction); 10% to 100%",
      ),
    "log-compact-bytes": int(1024)
      .default(8 * 1024 * 1024)
      .describe(
        "compact a session's log (snapshot plus replayable history) once the entries since its last compaction take this many bytes",
      ),
    "stream-chunks": flag
      .default(false)
      .describe("send message and thought text as it arrives (default: each message when it is committed)"),
    listen: ListenAddress.optional().describe(
      "serve ACP at /acp over Streamable HTTP and WebSocket on HOST:PORT instead of stdio",
    ),
    "tokens-file": z
      .string()
      .min(1)
      .optional()
      .describe("tenants and their token hashes, one `name sha256-hex` a line (re-read on SIGHUP)"),
    "workspace-root": z
      .array(
        z
          .string()
          .min(1)
          .transform((dir) => resolve(dir)),
      )
      .optional()
      .describe(
        "a directory sessions may use (repeatable): a session's cwd must lie in one; for every tenant whose tokens-file lines name no root=, and for a host without tenants (unset there: any directory)",
      ),
    "tls-cert": z.string().min(1).optional().describe("PEM certificate: serve HTTPS/WSS (with --tls-key)"),
    "tls-key": z.string().min(1).optional().describe("PEM private key of --tls-cert"),
    dashboard: flag
      .default(false)
      .describe("serve the web dashboard at /ui/ (--listen; it signs in with a token, as any client)"),
    "trace-content": flag
      .default(false)
      .describe(
        "traced turns' spans carry prompt text, model output and tool arguments and results (tracing itself is set by the OTEL_* environment variables; keys and tokens never)",
      ),
    "metrics-listen": ListenAddress.optional().describe(
      "serve Prometheus metrics at http://HOST:PORT/metrics (port 0: any free port, logged)",
    ),
    "max-connections": int(1)
      .default(1024)
      .describe(
        "sockets open at once, authenticated or not, and client connections (--listen): at the cap a socket that carries no authenticated request is closed to make room; a socket beyond authenticated ones is closed at once, a connection beyond gets 503",
      ),
    "max-connections-per-address": int(0)
      .default(256)
      .describe(
        "sockets open at once from one remote address (--listen): at the cap one of its sockets that carries no authenticated request makes room; 0: no cap (behind a proxy, every client has its address)",
      ),
    "max-connections-per-tenant": int(1)
      .optional()
      .describe(
        "client connections, and sockets carrying authenticated requests, one tenant holds at once (--listen; default half of --max-connections): one beyond gets 503 with Retry-After",
      ),
    "handshake-timeout-ms": int(100)
      .default(10_000)
      .describe(
        "a socket must have sent a request's headers, and a request its body, within this long, or it is closed (--listen)",
      ),
    "max-requests-in-flight": int(1)
      .default(64)
      .describe(
        "requests of one connection answered at once, session/prompt apart: at the bound its next message is not read until one is answered (--listen)",
      ),
    "max-buffered-bytes": int(64 * 1024)
      .default(16 * 1024 * 1024)
      .describe(
        "output a connection holds for a client that is not reading (--listen); each session may have 1 MiB or this, if smaller, on its way (stdio too) before its turn waits",
      ),
    "max-output-stall-ms": int(100)
      .default(30_000)
      .describe("how long a client may read none of a full buffer before it is disconnected (--listen)"),
    "max-message-bytes": int(1024)
      .default(4 * 1024 * 1024)
      .describe("largest request body or WebSocket message a client may send (--listen)"),
    "idle-timeout-ms": int(0)
      .default(600_000)
      .describe("close a connection that sent nothing this long and has no prompt in flight (--listen; 0: never)"),
  })
  .superRefine((config, ctx) => {
    if (config["worker-entry"] && !config["allow-fault-injection"]) {
      ctx.addIssue({ code: "custom", path: ["worker-entry"], message: "needs --allow-fault-injection" });
    }
    const provider = config["model-provider"];
    const fail = (flag: string, message: string) => ctx.addIssue({ code: "custom", path: [flag], message });
    const remoteOnly = (["tokens-file", "tls-cert", "tls-key"] as const).find((name) => config[name] !== undefined);
    if (remoteOnly && !config.listen) fail(remoteOnly, "needs --listen");
    if (config.dashboard && !config.listen) fail("dashboard", "needs --listen");
    if ((config["tls-cert"] === undefined) !== (config["tls-key"] === undefined))
      fail(config["tls-cert"] ? "tls-key" : "tls-cert", "--tls-cert and --tls-key go together");
    if (config.listen && !isLoopback(config.listen.host) && !config["tokens-file"]) {
      fail("listen", `${config.listen.host} is not a loopback address: refusing to serve it without --tokens-file`);
    }
    if (config["max-message-bytes"] >= config["max-buffered-bytes"])
      fail("max-message-bytes", "must be below --max-buffered-bytes");
    if (provider === "scripted") {
      const stray = (["base-url", "model", "models", "api-key-env", "context-window"] as const).find(
        (name) => config[name] !== undefined,
      );
      if (stray) fail(stray, "needs --model-provider openai-compatible or deepseek");
    } else if (provider === "openai-compatible") {
      if (!config["base-url"]) fail("base-url", "required with --model-provider openai-compatible");
      else if (!config.model) fail("model", "required with --model-provider openai-compatible");
    }
  });
/** The host's options: its flags parsed, camelCase (`config.cancelGraceMs`). */
export type HostOptions = Options<z.infer<typeof HostFlags>>;

function defaultStateDir(): string {
  const base = process.env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(base, "acp-session-host");
}

export { ConfigError };

/** Parses argv into a validated config; throws ConfigError with one readable line. */
export function parseHostOptions(argv: readonly string[]): HostOptions {
  const config = parseFlags(HostFlags, argv);
  // --store DIR is the state dir by another name: everything that hides or measures the state dir sees that one.
  if (config.store !== undefined && !isPostgresUrl(config.store)) config.stateDir = resolve(config.store);
  return config;
}

/** A --store that names PostgreSQL rather than a directory. */
/** The URL without its password, for logs and errors. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@");
  }
}

export function isPostgresUrl(store: string): boolean {
  return /^postgres(ql)?:\/\//.test(store);
}

/** This host's name in leases, /healthz and logs. */
export function hostIdOf(config: HostOptions): string {
  return config.hostId ?? `${hostname()}-${process.pid}`;
}

export function configHelp(): string {
  return flagsHelp(HostFlags);
}
