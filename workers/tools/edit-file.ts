// edit_file: replaces one exact, unique occurrence of a string in a file of the workspace.
import * as z from "zod/mini";
import { readText, writeText } from "./file-io.js";
import { writePolicy } from "./policy.js";
import type { Tool } from "./tool.js";
import type { Workspace } from "./workspace.js";

const Input = z.lazy(() =>
  z.object({
    path: z
      .string()
      .check(z.minLength(1), z.describe("File path, relative to the workspace root (or absolute inside it)")),
    old_string: z
      .string()
      .check(z.describe("Text to replace; must occur exactly once in the file, whitespace included")),
    new_string: z.string().check(z.describe("Replacement text")),
  }),
);
type Input = z.infer<typeof Input>;

export function editFileTool(workspace: Workspace): Tool<Input> {
  return {
    name: "edit_file",
    description:
      "Replace the one exact occurrence of old_string in a file with new_string. Fails if old_string is missing or not unique.",
    kind: "edit",
    input: Input,
    title: (input) => `Edit ${input.path}`,
    policy: writePolicy("edit_file"),
    async run(input) {
      if (input.old_string.length === 0)
        return { output: "old_string is empty; to create or replace a whole file use write_file", isError: true };
      if (input.old_string === input.new_string)
        return { output: "old_string and new_string are the same: nothing would change", isError: true };
      const target = await workspace.resolve(input.path);
      if (!target.exists) return { output: `no such file: ${target.shown}`, isError: true };
      const content = await readText(target);
      const at = content.indexOf(input.old_string);
      if (at < 0)
        return {
          output: `old_string was not found in ${target.shown}; it must match the file exactly, whitespace included`,
          isError: true,
        };
      let count = 1;
      for (
        let next = content.indexOf(input.old_string, at + 1);
        next >= 0;
        next = content.indexOf(input.old_string, next + 1)
      )
        count++;
      if (count > 1) {
        return {
          output: `old_string occurs ${count} times in ${target.shown}; include more surrounding text so that it matches exactly once`,
          isError: true,
        };
      }
      await writeText(target, content.slice(0, at) + input.new_string + content.slice(at + input.old_string.length));
      const line = content.slice(0, at).split("\n").length;
      return { output: `edited ${target.shown}: replaced 1 occurrence at line ${line}`, isError: false };
    },
  };
}
