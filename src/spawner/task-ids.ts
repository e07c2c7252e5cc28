// Task ids name the spawner process that started the task: `bg-<instance>-<random>`. A spawner asked for a task of
// another instance knows that it died with an earlier spawner (the host restarted it, or the host itself
// restarted), rather than answering as for an id that never existed.
import { randomBytes } from "node:crypto";

const ID = /^(?:bg|fg)-([0-9a-f]{8})-[0-9a-f]{12}$/;

export function newInstance(): string {
  return randomBytes(4).toString("hex");
}

export function newTaskId(background: boolean, instance: string): string {
  return `${background ? "bg" : "fg"}-${instance}-${randomBytes(6).toString("hex")}`;
}

/** The instance that made the id; null for an id not of this form. */
export function instanceOf(taskId: string): string | null {
  return ID.exec(taskId)?.[1] ?? null;
}
