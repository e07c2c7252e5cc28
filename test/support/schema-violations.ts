// Every test that ends fails if a checked stream (support/checked-host.ts: every startHost host unless opted out,
// every connectChecked client) saw a schema violation during it; the file fails for one that came after its last test
// (a host stopped in its afterAll). vitest runs after-hooks last registered first: this file's run after the file's.
import { afterAll, afterEach, expect } from "vitest";
import { forgetViolations, unreportedViolations } from "./checked-host.js";

afterEach(() => {
  expect(unreportedViolations(), "what the host sent that the ACP schema does not describe").toEqual([]);
});

afterAll(() => {
  const late = unreportedViolations();
  forgetViolations();
  expect(late, "what the host sent that the ACP schema does not describe").toEqual([]);
});
