import { describe, expect, it } from "vitest";
import { bashTools } from "../../workers/tools/bash.js";
import { editFileTool } from "../../workers/tools/edit-file.js";
import { listDirTool } from "../../workers/tools/list-dir.js";
import { readFileTool } from "../../workers/tools/read-file.js";
import { ToolRegistry } from "../../workers/tools/registry.js";
import { SpawnerConnection } from "../../workers/tools/spawner-connection.js";
import { updatePlanTool } from "../../workers/tools/update-plan.js";
import { Workspace } from "../../workers/tools/workspace.js";
import { writeFileTool } from "../../workers/tools/write-file.js";

describe("the tools' specs offered to a model", () => {
  it("are each a plain JSON Schema object, though the tools' input schemas are built only on first use", () => {
    const workspace = new Workspace("/tmp");
    const registry = new ToolRegistry([
      ...bashTools({ connection: new SpawnerConnection(null), outputCapBytes: 1024 }),
      readFileTool(workspace, 1024),
      writeFileTool(workspace),
      editFileTool(workspace),
      listDirTool(workspace, 1024),
      updatePlanTool(),
    ]);
    for (const spec of registry.specs()) {
      expect(spec.parameters, spec.name).toMatchObject({ type: "object", additionalProperties: false });
      expect(Object.keys(spec.parameters.properties as object).length, spec.name).toBeGreaterThan(0);
      expect(spec.parameters, spec.name).not.toHaveProperty("$ref");
      expect(spec.parameters, spec.name).not.toHaveProperty("$defs");
    }
    const read = registry.specs().find((spec) => spec.name === "read_file")!;
    expect(read.parameters).toMatchObject({
      properties: { path: { type: "string", minLength: 1 }, offset: { type: "integer", minimum: 1 } },
      required: ["path"],
    });
  });
});
