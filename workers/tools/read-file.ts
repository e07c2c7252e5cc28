// read_file: a text file of the workspace, whole or by lines (offset/limit), capped for the model.
import { promises as fs } from "node:fs";
import * as z from "zod/mini";
import { looksBinary, readHead } from "./file-io.js";
import { readPolicy } from "./policy.js";
import type { Tool } from "./tool.js";
import type { Workspace } from "./workspace.js";

/** Larger files are read up to here; the rest needs offset/limit past it (or bash). */
const MAX_READ_BYTES = 16 * 1024 * 1024;

const Input = z.lazy(() =>
  z.object({
    path: z
      .string()
      .check(z.minLength(1), z.describe("File path, relative to the workspace root (or absolute inside it)")),
    offset: z.optional(z.int().check(z.minimum(1), z.describe("First line to return (1-based)"))),
    limit: z.optional(z.int().check(z.minimum(1), z.describe("How many lines to return"))),
  }),
);
type Input = z.infer<typeof Input>;

export function readFileTool(workspace: Workspace, outputCapBytes: number): Tool<Input> {
  return {
    name: "read_file",
    description:
      "Read a text file in the workspace. offset/limit select lines; long results are cut with a note saying where to read on.",
    kind: "read",
    input: Input,
    title: (input) => `Read ${input.path}`,
    policy: readPolicy,
    async run(input) {
      const target = await workspace.resolve(input.path);
      if (!target.exists) return { output: `no such file: ${target.shown}`, isError: true };
      const info = await fs.stat(target.real);
      if (info.isDirectory()) return { output: `${target.shown} is a directory; use list_dir`, isError: true };
      if (!info.isFile()) return { output: `${target.shown} is not a regular file`, isError: true };
      const { bytes, size } = await readHead(target, MAX_READ_BYTES);
      if (looksBinary(bytes))
        return { output: `${target.shown} looks binary (${size} bytes); not shown`, isError: true };
      const lines = bytes.toString("utf8").split("\n");
      if (lines.at(-1) === "") lines.pop();
      const first = (input.offset ?? 1) - 1;
      if (first >= lines.length && lines.length > 0)
        return { output: `${target.shown} has only ${lines.length} lines`, isError: true };
      const last = Math.min(lines.length, input.limit ? first + input.limit : lines.length);
      const shown: string[] = [];
      let used = 0;
      let line = first;
      for (; line < last; line++) {
        const cost = Buffer.byteLength(lines[line]!) + 1;
        if (used + cost > outputCapBytes && shown.length > 0) break;
        shown.push(lines[line]!);
        used += cost;
      }
      let output = shown.join("\n");
      if (line < last)
        output += `\n[… cut at ${outputCapBytes} bytes: lines ${first + 1}-${line} of ${lines.length} shown; read on with offset=${line + 1}]`;
      else if (size > bytes.length && last === lines.length)
        output += `\n[… only the first ${bytes.length} of ${size} bytes were read]`;
      return { output, isError: false };
    },
  };
}
