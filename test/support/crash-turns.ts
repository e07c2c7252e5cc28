// The turns the kill -9 loop runs: echoes, bash with output, file writes and reads, sleeps a kill can land in; and
// short echoes only, whose log a compaction makes smaller (a log of the others it would make larger: it is skipped).
import type { Random } from "./prng.js";
import { bash, script, tool } from "./tools.js";

export function crashTurn(random: Random, n: number): string {
  switch (random.int(0, 5)) {
    case 0:
      return `turn ${n}: plain`;
    case 1:
      return script({ say: `turn ${n}: counting` }, bash(`seq 1 ${random.int(1, 3000)}`));
    case 2:
      return script(
        tool("write_file", { path: `f${n}.txt`, content: `turn ${n}\n` }),
        tool("read_file", { path: `f${n}.txt` }),
        { say: `turn ${n}: wrote` },
      );
    case 3:
      return script(bash(`sleep 0.${random.int(1, 5)}; echo slept ${n}`), { say: `turn ${n}: after sleep` });
    case 4:
      return script({ say: `turn ${n}: big` }, bash(`head -c ${random.int(10_000, 200_000)} /dev/zero | tr '\\0' 'y'`));
    default:
      return script({ say: `turn ${n}: several` }, bash(`echo one ${n}`), bash(`echo two ${n} >&2; exit 3`), {
        say: "end",
      });
  }
}

/** A short echo: its turn marks weigh more than the messages a compaction's snapshot repeats. */
export function shortTurn(n: number): string {
  return `turn ${n}: short`;
}
