// write_file: creates or replaces a file of the workspace (parent directories are created).
import { mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { writeText } from "./file-io.js";
import { writePolicy } from "./policy.js";
import type { Tool } from "./tool.js";
import type { Workspace } from "./workspace.js";

const Input = z.object({
  path: z.string().min(1).describe("File path, relative to the workspace root (or absolute inside it)"),
  content: z.string().describe("The whole new content of the file"),
});
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
      if (target.exists && (await stat(target.real)).isDirectory()) return { output: `${target.shown} is a directory`, isError: true };
      await mkdir(dirname(target.real), { recursive: true });
      const bytes = await writeText(target.real, input.content);
      return { output: `${target.exists ? "replaced" : "created"} ${target.shown} (${bytes} bytes)`, isError: false };
    },
  };
}
