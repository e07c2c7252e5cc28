// The `run` command's flags: one zod schema gives names, defaults, validation and --help.
import { z } from "zod";
import { SessionModeId } from "../protocol/port.js";
import { flagsHelp, parseFlags, type Options } from "../flags.js";

const flag = z.union([z.boolean(), z.enum(["true", "false"])]).transform((value) => value === true || value === "true");

export const RunConfig = z.object({
  sessions: z.coerce.number().int().min(1).max(100_000).default(8).describe("sessions driven at once"),
  prompt: z.string().min(1, "must not be empty").default("hello").describe("the prompt every session sends"),
  turns: z.coerce.number().int().min(1).default(1).describe("prompts each session sends, one after another"),
  cwd: z.string().min(1).optional().describe("working directory of every session (default: the current directory)"),
  mode: z
    .enum(SessionModeId.options)
    .optional()
    .describe(`session mode, one of ${SessionModeId.options.join(", ")} (default: the host's)`),
  json: flag.default(false).describe("print one JSON document on stdout instead of the table"),
  "host-logs": flag.default(false).describe("pass the host's JSON logs through to stderr"),
  connect: z
    .url({ protocol: /^(https?|wss?)$/, error: "must be an http(s) or ws(s) URL, e.g. ws://127.0.0.1:8765/acp" })
    .optional()
    .describe("drive a host already listening there (token from ACP_SESSION_HOST_TOKEN) instead of spawning one"),
  reconnect: flag
    .default(false)
    .describe(
      "with --connect: when the connection drops, connect again (e.g. through a proxy to a live host) and resume every session; a prompt cut by the drop counts as failed",
    ),
});
export type RunConfig = Options<z.infer<typeof RunConfig>>;

export interface RunInvocation {
  config: RunConfig;
  /** Everything after `--`: flags for the host (`acp-session-host serve --help`). */
  hostArgs: string[];
}

/** Splits `run`'s argv at `--` and validates its own flags; the host's flags are validated by the caller. */
export function parseRunArgs(argv: readonly string[]): RunInvocation {
  const split = argv.indexOf("--");
  const own = split === -1 ? argv : argv.slice(0, split);
  const hostArgs = split === -1 ? [] : argv.slice(split + 1);
  return { config: parseFlags(RunConfig, own), hostArgs: [...hostArgs] };
}

export function runUsage(): string {
  return `usage: acp-session-host run [flags] [-- host flags]

Spawns a host, drives --sessions concurrent sessions through it and prints each session's stop reason, latency and
the first line of its answer (a live progress bar on stderr when it is a terminal). Flags after -- go to the host
(see acp-session-host --help).

flags:
${flagsHelp(RunConfig)}
`;
}
