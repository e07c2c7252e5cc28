// Which roots bind a tenant: its own, else --workspace-root, else none (any directory).
import { expect, it } from "vitest";
import { rootsOf, withinRoots } from "../../src/host/roots/roots-of.js";

it("a tenant's own roots, else the fallback, else none; a path is within a root by whole components", () => {
  const byTenant = new Map([
    ["alpha", ["/srv/a"]],
    ["beta", []],
  ]);
  expect(rootsOf({ byTenant, fallback: ["/srv/shared"] }, "alpha")).toEqual(["/srv/a"]);
  expect(rootsOf({ byTenant, fallback: ["/srv/shared"] }, "beta")).toEqual(["/srv/shared"]);
  expect(rootsOf({ byTenant, fallback: ["/srv/shared"] }, null)).toEqual(["/srv/shared"]);
  expect(rootsOf({ byTenant, fallback: [] }, "beta")).toBeNull();
  expect(rootsOf({ byTenant: new Map(), fallback: [] }, null)).toBeNull();
  expect(withinRoots(["/srv/a"], "/srv/a")).toBe(true);
  expect(withinRoots(["/srv/a"], "/srv/a/x/y")).toBe(true);
  expect(withinRoots(["/srv/a"], "/srv/ab")).toBe(false);
  expect(withinRoots(["/srv/a"], "/srv")).toBe(false);
});
