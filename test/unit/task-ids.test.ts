// A task id says which spawner process made it, so a later spawner can tell a task that died with an earlier one
// from an id that never was.
import { expect, it } from "vitest";
import { instanceOf, newInstance, newTaskId } from "../../src/spawner/task-ids.js";

it("names the instance that made it; ids of another form name none", () => {
  const mine = newInstance();
  const other = newInstance();
  expect(mine).not.toBe(other);
  const background = newTaskId(true, mine);
  expect(background).toMatch(/^bg-[0-9a-f]{8}-[0-9a-f]{12}$/);
  expect(instanceOf(background)).toBe(mine);
  expect(instanceOf(newTaskId(false, other))).toBe(other);
  for (const id of ["bg-000000000000", `bg-${mine}-../../etc/passwd`, `bg-${mine}`, "", `xx-${mine}-000000000000`])
    expect(instanceOf(id)).toBeNull();
});
