// A tokens file's tenants that would be open to every directory: no root of their own and no --workspace-root.
import { expect, it } from "vitest";
import { tenantsWithoutRoots } from "../../src/host/roots/roots-of.js";

it("names the tenants with no root while no fallback is given, and none once one is", () => {
  const byTenant = new Map([
    ["alpha", ["/srv/a"]],
    ["beta", []],
    ["gamma", []],
  ]);
  expect(tenantsWithoutRoots({ byTenant, fallback: [] })).toEqual(["beta", "gamma"]);
  expect(tenantsWithoutRoots({ byTenant, fallback: ["/srv/shared"] })).toEqual([]);
});
