// The exec helpers (src/spawner/exec-helper.ts).
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { frameRun } from "../../src/spawner/exec-helper.js";
import { HELPERS } from "../support/exec-helpers.js";
import { tempDir } from "../support/temp-dirs.js";

// Each exec helper, driven through its protocol outside a sandbox: every command runs in a bash and a process group
// of its own, its status comes back as `wait` gives it, a kill order reaches its group, and on the end of its orders
// the helper reports what still runs before its output ends.
describe("its protocol", () => {
  it.each(HELPERS)(
    "the $name helper: own bash and group per command, statuses, kill orders, reports after its input ends",
    async ({ argv }) => {
      const dir = tempDir("exec-helper-");
      const [file, ...args] = argv(dir);
      const helper = spawn(file!, args, {
        stdio: ["pipe", "pipe", "inherit"],
        env: { PATH: process.env.PATH, LANG: "C.UTF-8" },
      });
      const reports = new Map<string, string[]>();
      const waiters: Array<() => void> = [];
      createInterface({ input: helper.stdout! }).on("line", (line) => {
        const [what, id, ...rest] = line.split(" ");
        if (id !== undefined) reports.set(`${what} ${id}`, rest);
        for (const wake of waiters.splice(0)) wake();
      });
      const report = async (key: string): Promise<string[]> => {
        while (!reports.has(key)) await new Promise<void>((resolve) => waiters.push(resolve));
        return reports.get(key)!;
      };
      const run = (id: string, command: string) => {
        writeFileSync(join(dir, `${id}.out`), "");
        helper.stdin!.write(frameRun(id, command));
      };
      const out = (id: string) => readFileSync(join(dir, `${id}.out`), "utf8");
      try {
        run("status", "echo before; exit 3");
        run("signal", "kill -TERM $$");
        run("self-a", "echo $$ $BASHPID $(ps -o pgid= -p $$)");
        run("self-b", "echo $$ $BASHPID $(ps -o pgid= -p $$)");
        expect(await report("exit status")).toEqual(["3"]);
        expect(out("status")).toBe("before\n");
        expect(await report("exit signal")).toEqual(["143"]);
        for (const id of ["self-a", "self-b"]) {
          expect(await report(`exit ${id}`)).toEqual(["0"]);
          const [pid, bashPid, pgid] = out(id).trim().split(/\s+/);
          expect([bashPid, pgid]).toEqual([pid, pid]);
          expect(await report(`pid ${id}`)).toEqual([pid]);
        }
        expect(out("self-a")).not.toBe(out("self-b"));

        run("sleeper", "sleep 30 & wait");
        const [pgid] = await report("pid sleeper");
        helper.stdin!.write(`kill ${pgid} TERM\n`);
        expect(await report("exit sleeper")).toEqual(["143"]);

        run("last", "sleep 0.3; echo done");
        helper.stdin!.end();
        const [code] = (await once(helper, "close")) as [number | null];
        expect(code).toBe(0);
        expect(reports.get("exit last")).toEqual(["0"]);
        expect(out("last")).toBe("done\n");
      } finally {
        helper.kill("SIGKILL");
      }
    },
  );
});

// A command reaches the exec helper as a framed run order (a line, then the escaped text read with -N); each real
// helper must run exactly the text sent, and read the order after it as an order.
describe("a command's framing", () => {
  it.each(HELPERS)("every framed command reaches the $name helper's bash as the text it was", ({ argv }) => {
    const texts = fc.sample(
      fc.string({
        unit: fc.oneof(
          fc.constantFrom("\\", "\n", "\t", " ", "\r", "\x7f", "\x01", "c", "%", "'", '"', "$", "é", "𝄞"),
          fc.string({ unit: "grapheme", maxLength: 1 }),
        ),
        minLength: 1,
        maxLength: 40,
      }),
      { numRuns: 100, seed: 15 },
    );
    const dir = tempDir("exec-helper-");
    // A quoted here-document prints its body exactly as bash was given it.
    const orders = texts.map((text, i) => frameRun(`c${i}`, `cat <<'END_OF_TEXT'\n${text}\nEND_OF_TEXT`)).join("");
    const [file, ...args] = argv(dir);
    const helper = spawnSync(file!, args, {
      input: orders,
      encoding: "utf8",
      env: { PATH: process.env.PATH, LANG: "C.UTF-8" },
    });
    expect(helper.status).toBe(0);
    expect(helper.stdout.match(/^exit c\d+ 0$/gm)).toHaveLength(texts.length);
    texts.forEach((text, i) => expect(readFileSync(join(dir, `c${i}.out`), "utf8")).toBe(`${text}\n`));
  });
});
