// write_file: creates or replaces a file of the workspace (parent directories are created).
import { promises as fs } from "node:fs";
import * as z from "zod/mini";
import { writeText } from "./file-io.js";
import { writePolicy } from "./policy.js";
import type { Tool } from "./tool.js";
import type { Workspace } from "./workspace.js";

const Input = z.lazy(() =>
  z.object({
    path: z
      .string()
      .check(z.minLength(1), z.describe("File path, relative to the workspace root (or absolute inside it)")),
    content: z.string().check(z.describe("The whole new content of the file")),
  }),
);
type Input = z.infer<typeof Input>;

export function writeFileTool(workspace: Workspace): Tool<Input> {
  return {
    name: "write_file",
    description: "Create a file in the workspace, or replace its whole content. Parent directories are created.",
    kind: "edit",
    input: Input,
    title: (input) => `Write ${input.path}`,
    policy: writePolicy("write_file"),
    async run(input) {
      const target = await workspace.resolve(input.path);
      if (target.exists && (await fs.stat(target.real)).isDirectory())
        return { output: `${target.shown} is a directory`, isError: true };
      const bytes = await writeText(target, input.content, true);
      return { output: `${target.exists ? "replaced" : "created"} ${target.shown} (${bytes} bytes)`, isError: false };
    },
  };
}
