// list_dir: the entries of a directory of the workspace, sorted; directories end in "/", symlinks show their target.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { readPolicy } from "./policy.js";
import type { Tool } from "./tool.js";
import type { Workspace } from "./workspace.js";

const MAX_ENTRIES = 1000;

const Input = z.lazy(() =>
  z.object({
    path: z
      .string()
      .check(z.minLength(1), z.describe('Directory path, relative to the workspace root ("." for the root)')),
  }),
);
type Input = z.infer<typeof Input>;

export function listDirTool(workspace: Workspace, outputCapBytes: number): Tool<Input> {
  return {
    name: "list_dir",
    description: 'List a directory of the workspace: directories end in "/", symlinks show "-> target".',
    kind: "read",
    input: Input,
    title: (input) => `List ${input.path}`,
    policy: readPolicy,
    async run(input) {
      const target = await workspace.resolve(input.path);
      if (!target.exists) return { output: `no such directory: ${target.shown}`, isError: true };
      if (!(await fs.stat(target.real)).isDirectory())
        return { output: `${target.shown} is not a directory; use read_file`, isError: true };
      const entries = (await fs.readdir(target.real, { withFileTypes: true })).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      );
      if (entries.length === 0) return { output: `${target.shown} is empty`, isError: false };
      const lines: string[] = [];
      let used = 0;
      for (const entry of entries.slice(0, MAX_ENTRIES)) {
        let line = entry.name;
        if (entry.isDirectory()) line += "/";
        else if (entry.isSymbolicLink())
          line += ` -> ${await fs.readlink(join(target.real, entry.name)).catch(() => "?")}`;
        used += Buffer.byteLength(line) + 1;
        if (used > outputCapBytes) break;
        lines.push(line);
      }
      if (lines.length < entries.length) lines.push(`[… ${entries.length - lines.length} more entries not shown]`);
      return { output: lines.join("\n"), isError: false };
    },
  };
}
