// The tools a session worker offers its model.
import type { WorkerInit } from "../../src/protocol/port.js";
import type { ChildRequests } from "../loop/child-requests.js";
import { bashTools } from "./bash.js";
import { editFileTool } from "./edit-file.js";
import { listDirTool } from "./list-dir.js";
import { readFileTool } from "./read-file.js";
import { ToolRegistry } from "./registry.js";
import { spawnAgentTool } from "./spawn-agent.js";
import { SpawnerConnection } from "./spawner-connection.js";
import { updatePlanTool } from "./update-plan.js";
import { Workspace } from "./workspace.js";
import { writeFileTool } from "./write-file.js";

/** The session's tools, and its channel to the spawner (re-granted when the host restarts its spawner). */
export function createTools(
  init: WorkerInit,
  children: ChildRequests,
): { tools: ToolRegistry; spawner: SpawnerConnection; workspace: Workspace } {
  const connection = new SpawnerConnection(init.spawner);
  const workspace = new Workspace(init.cwd, init.sandbox.hidden, init.sandbox.confined);
  const cap = init.outputCapBytes;
  const tools = new ToolRegistry(
    [
      ...bashTools({ connection, outputCapBytes: cap }),
      readFileTool(workspace, cap),
      writeFileTool(workspace),
      editFileTool(workspace),
      listDirTool(workspace, cap),
      updatePlanTool(),
      spawnAgentTool(children),
    ],
    () => connection.close(),
  );
  return { tools, spawner: connection, workspace };
}
