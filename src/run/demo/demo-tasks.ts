// The demo's tasks: what each session is asked to do, as a script for the embedded scripted model and in words for a
// real one, and how the demo checks afterwards that it was done. Every task works in its own workspace.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type TaskKind = "project" | "neighbour" | "crash" | "cancel" | "read-only";

export interface DemoTask {
  name: string;
  kind: TaskKind;
  /** The session's mode (default: auto). */
  mode?: string;
}

export interface TaskPrompt {
  text: string;
  /** The demo cancels this prompt once its first tool call is running (the cancel task). */
  cancelOnTool?: boolean;
  /** This prompt is expected to fail (the crash task's first prompt: the worker dies mid-task). */
  expectError?: boolean;
}

const MODULES = ["calc", "strings", "arrays", "dates", "paths", "money", "units"] as const;

/** The twelve sessions: seven small projects, and one each of the neighbour, crash, cancel and read-only cases. */
export function demoTasks(count: number): DemoTask[] {
  const special: DemoTask[] = [
    { name: "neighbour", kind: "neighbour" },
    { name: "crash", kind: "crash" },
    { name: "cancel", kind: "cancel" },
    { name: "read-only", kind: "read-only", mode: "read-only" },
  ];
  const projects = Math.max(0, count - special.length);
  const tasks: DemoTask[] = Array.from({ length: projects }, (_, i) => ({
    name: `project-${MODULES[i % MODULES.length]}${i >= MODULES.length ? i : ""}`,
    kind: "project",
  }));
  return [...tasks, ...special].slice(0, count);
}

const script = (...steps: unknown[]) => `/script ${JSON.stringify(steps)}`;
const tool = (name: string, input: Record<string, unknown>) => ({ tool: name, input });
const bash = (command: string) => tool("bash", { command });

/** The module each project writes: its add() is wrong at first, and the test finds it. */
function projectFiles(module: string): Record<string, string> {
  return {
    [`src/${module}.mjs`]:
      "export function add(a, b) {\n  return a - b;\n}\n\nexport function twice(x) {\n  return add(x, x);\n}\n",
    [`test/${module}.test.mjs`]: `import assert from "node:assert/strict";\nimport { add, twice } from "../src/${module}.mjs";\nassert.equal(add(2, 3), 5);\nassert.equal(twice(4), 8);\nconsole.log("2 tests passed");\n`,
    "NOTES.md": `# ${module}\n\nTODO: document add()\nTODO: add a benchmark\n`,
  };
}

/** The prompts of a task, in order: scripted (the embedded model) or in words (a real model). */
export function taskPrompts(
  task: DemoTask,
  workspaces: { own: string; neighbour: string },
  scripted: boolean,
): TaskPrompt[] {
  const module = task.name.replace(/^project-/, "").replace(/\d+$/, "");
  switch (task.kind) {
    case "project": {
      const files = projectFiles(module);
      const test = `node test/${module}.test.mjs`;
      if (!scripted) {
        return [
          {
            text:
              `In this directory, create src/${module}.mjs exporting add(a, b) and twice(x) (which returns add(x, x)), test/${module}.test.mjs that checks ` +
              `add(2, 3) is 5 and twice(4) is 8 with node:assert and prints "2 tests passed", and NOTES.md with two lines starting "TODO:". Run the test ` +
              `with \`${test}\` until it passes, list the TODO lines with grep, then build: copy src/*.mjs into dist/. Answer with the test's output and the TODO count.`,
          },
        ];
      }
      return [
        {
          text: script(
            ...Object.entries(files).map(([path, content]) => tool("write_file", { path, content })),
            bash(test),
            bash("grep -n TODO NOTES.md"),
            tool("edit_file", { path: `src/${module}.mjs`, old_string: "return a - b;", new_string: "return a + b;" }),
            bash(`${test} && echo ALL PASS`),
            bash("mkdir -p dist && cp src/*.mjs dist/ && ls dist"),
            tool("read_file", { path: `dist/${module}.mjs` }),
            {
              say: `Fixed add() (it subtracted), the tests pass and dist/${module}.mjs is built. 2 TODO lines in NOTES.md.`,
            },
          ),
        },
      ];
    }
    case "neighbour": {
      const theirs = join(workspaces.neighbour, "NOTES.md");
      if (!scripted) {
        return [
          {
            text: `Read the file ${theirs} (it belongs to another session) with bash and with read_file, and say what happened.`,
          },
        ];
      }
      return [
        {
          text: script(bash(`cat ${theirs}`), tool("read_file", { path: theirs }), {
            say: "Both reads of the neighbour's notes were refused.",
          }),
        },
      ];
    }
    case "crash": {
      if (!scripted) {
        return [
          { text: "Write progress.txt containing 'step 1', then say done." },
          { text: "Append 'step 2' as a new line to progress.txt, then say done." },
        ];
      }
      return [
        {
          text: script(tool("write_file", { path: "progress.txt", content: "step 1\n" }), {
            crash: "injected by the demo: the worker dies mid-task",
          }),
          expectError: true,
        },
        {
          text: script(
            tool("read_file", { path: "progress.txt" }),
            tool("write_file", { path: "progress.txt", content: "step 1\nstep 2\n" }),
            { say: "Picked up after the crash: step 2 written." },
          ),
        },
      ];
    }
    case "cancel": {
      if (!scripted) {
        return [
          { text: "Run `sleep 30` with bash, then say done.", cancelOnTool: true },
          { text: "Write after-cancel.txt containing 'back', then say done." },
        ];
      }
      return [
        { text: script(bash("sleep 30"), { say: "not reached" }), cancelOnTool: true },
        {
          text: script(tool("write_file", { path: "after-cancel.txt", content: "back\n" }), {
            say: "Back after the cancel.",
          }),
        },
      ];
    }
    case "read-only": {
      if (!scripted)
        return [{ text: "List this directory, then try to create a file named nope.txt, and say whether it worked." }];
      return [
        {
          text: script(
            tool("list_dir", { path: "." }),
            tool("write_file", { path: "nope.txt", content: "x" }),
            bash("touch nope.txt"),
            { say: "Reading works; writing is refused here." },
          ),
        },
      ];
    }
  }
}

/** What a session must have left behind: null when it did what it should, else why not. */
export function checkTask(task: DemoTask, workspace: string, neighbourFiles: string): string | null {
  const file = (path: string) =>
    existsSync(join(workspace, path)) ? readFileSync(join(workspace, path), "utf8") : null;
  switch (task.kind) {
    case "project": {
      const module = task.name.replace(/^project-/, "").replace(/\d+$/, "");
      const built = file(`dist/${module}.mjs`);
      if (built === null) return `dist/${module}.mjs was not built`;
      if (!/a \+ b/.test(built)) return "the built add() still subtracts";
      return file("NOTES.md")?.includes("TODO") ? null : "NOTES.md has no TODO lines";
    }
    case "neighbour":
      return readFileSync(join(neighbourFiles, "NOTES.md"), "utf8").length > 0
        ? null
        : "the neighbour's notes are gone";
    case "crash":
      return file("progress.txt")?.includes("step 2") ? null : "progress.txt does not say step 2";
    case "cancel":
      return file("after-cancel.txt") === null ? "after-cancel.txt was not written after the cancel" : null;
    case "read-only":
      return file("nope.txt") === null ? null : "a read-only session wrote nope.txt";
  }
}

/** What a session's tool calls must show: null when they do, else why not. */
export function checkCalls(
  task: DemoTask,
  calls: ReadonlyArray<{ title: string; status: string | null | undefined }>,
): string | null {
  const failed = calls.filter((call) => call.status === "failed").map((call) => call.title);
  switch (task.kind) {
    case "neighbour":
      return calls.length > 0 && failed.length === calls.length
        ? null
        : `a read of the neighbour's workspace was not refused (${calls.length - failed.length} of ${calls.length} succeeded)`;
    case "read-only":
      return failed.length > 0 ? null : "no write was refused";
    default:
      return null;
  }
}
