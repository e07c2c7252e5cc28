// read_file, write_file, edit_file, list_dir on real files: what they do, and the workspace confinement
// (`..`, absolute paths outside, symlinks leading outside, dangling symlinks) checked on real paths.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { resultOf, results, script, tool } from "../support/tools.js";

const CAP = 4096;

describe("file tools", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost(["--default-mode", "auto", "--output-cap-bytes", String(CAP)]);
  });
  afterAll(async () => {
    await host.dispose();
  });

  it("write, read (whole or by lines), edit and list files in the workspace", async () => {
    const ws = tempDir();
    const { sessionId } = await host.client.newSession(ws);
    const result = await host.client.prompt(
      sessionId,
      script(
        tool("write_file", { path: "src/deep/a.txt", content: "one\ntwo\nthree\n" }),
        tool("write_file", { path: "src/deep/a.txt", content: "one\ntwo\nthree\nfour\n" }),
        tool("read_file", { path: "src/deep/a.txt" }),
        tool("read_file", { path: "src/deep/a.txt", offset: 2, limit: 2 }),
        tool("edit_file", { path: "src/deep/a.txt", old_string: "two\n", new_string: "2\n" }),
        tool("read_file", { path: `${ws}/src/../src/deep/a.txt` }),
        tool("list_dir", { path: "." }),
        tool("list_dir", { path: "src/deep" }),
      ),
    );
    expect(results(result)).toEqual([
      "created src/deep/a.txt (14 bytes)",
      "replaced src/deep/a.txt (19 bytes)",
      "one\ntwo\nthree\nfour",
      "two\nthree",
      "edited src/deep/a.txt: replaced 1 occurrence at line 2",
      "one\n2\nthree\nfour",
      "src/",
      "a.txt",
    ]);
    expect(result.toolCalls.map((call) => call.kind)).toEqual([
      "edit",
      "edit",
      "read",
      "read",
      "edit",
      "read",
      "read",
      "read",
    ]);
    expect(result.toolCalls.map((call) => call.title)).toContain("Edit src/deep/a.txt");
    expect(readFileSync(join(ws, "src/deep/a.txt"), "utf8")).toBe("one\n2\nthree\nfour\n");
  });

  it("edit_file needs an exact, unique match and says so clearly", async () => {
    const ws = tempDir();
    writeFileSync(join(ws, "f.txt"), "alpha beta\nalpha gamma\n");
    const { sessionId } = await host.client.newSession(ws);
    const result = await host.client.prompt(
      sessionId,
      script(
        tool("edit_file", { path: "f.txt", old_string: "delta", new_string: "x" }),
        tool("edit_file", { path: "f.txt", old_string: "alpha", new_string: "x" }),
        tool("edit_file", { path: "f.txt", old_string: "", new_string: "x" }),
        tool("edit_file", { path: "missing.txt", old_string: "a", new_string: "b" }),
        tool("edit_file", { path: "f.txt", old_string: "alpha gamma", new_string: "alpha delta" }),
      ),
    );
    expect(results(result)).toEqual([
      "old_string was not found in f.txt; it must match the file exactly, whitespace included",
      "old_string occurs 2 times in f.txt; include more surrounding text so that it matches exactly once",
      "old_string is empty; to create or replace a whole file use write_file",
      "no such file: missing.txt",
      "edited f.txt: replaced 1 occurrence at line 2",
    ]);
    expect(result.toolCalls.map((call) => call.status)).toEqual(["failed", "failed", "failed", "failed", "completed"]);
    expect(readFileSync(join(ws, "f.txt"), "utf8")).toBe("alpha beta\nalpha delta\n");
  });

  it("read_file output is capped with a note saying where to read on", async () => {
    const ws = tempDir();
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i + 1}`);
    writeFileSync(join(ws, "long.txt"), `${lines.join("\n")}\n`);
    const { sessionId } = await host.client.newSession(ws);
    const first = resultOf(
      (await host.client.prompt(sessionId, script(tool("read_file", { path: "long.txt" })))).toolCalls[0],
    );
    const note = /\n\[… cut at 4096 bytes: lines 1-(\d+) of 2000 shown; read on with offset=(\d+)\]$/.exec(first);
    expect(note).not.toBeNull();
    const shown = Number(note![1]);
    expect(Number(note![2])).toBe(shown + 1);
    expect(first.slice(0, note!.index)).toBe(lines.slice(0, shown).join("\n"));
    expect(Buffer.byteLength(first.slice(0, note!.index))).toBeLessThanOrEqual(CAP);
    const next = resultOf(
      (
        await host.client.prompt(
          sessionId,
          script(tool("read_file", { path: "long.txt", offset: shown + 1, limit: 3 })),
        )
      ).toolCalls[0],
    );
    expect(next).toBe(lines.slice(shown, shown + 3).join("\n"));
  });

  it("refuses `..`, absolute paths outside, and symlinks that lead outside, on real paths", async () => {
    const root = tempDir();
    const ws = join(root, "ws");
    mkdirSync(join(root, "other"), { recursive: true });
    mkdirSync(join(ws, "src"), { recursive: true });
    writeFileSync(join(root, "other", "secret"), "top secret\n");
    writeFileSync(join(ws, "src", "ok.txt"), "fine\n");
    symlinkSync("/etc", join(ws, "etc-link"));
    symlinkSync(join(root, "other", "secret"), join(ws, "secret-link"));
    symlinkSync(join(root, "other", "made-through-link"), join(ws, "dangling"));
    symlinkSync(join(ws, "src"), join(ws, "inner-link"));
    const stray = `/tmp/acp-stray-${randomBytes(6).toString("hex")}`;
    const etcProbe = `acp-probe-${randomBytes(6).toString("hex")}`;
    const { sessionId } = await host.client.newSession(ws);

    const result = await host.client.prompt(
      sessionId,
      script(
        tool("read_file", { path: "../other/secret" }),
        tool("write_file", { path: "../other/new.txt", content: "x" }),
        tool("read_file", { path: "/etc/hostname" }),
        tool("write_file", { path: stray, content: "x" }),
        tool("read_file", { path: "etc-link/hostname" }),
        tool("list_dir", { path: "etc-link" }),
        tool("write_file", { path: `etc-link/${etcProbe}`, content: "x" }),
        tool("read_file", { path: "secret-link" }),
        tool("edit_file", { path: "secret-link", old_string: "top", new_string: "no" }),
        tool("write_file", { path: "dangling", content: "x" }),
        tool("read_file", { path: "inner-link/ok.txt" }),
      ),
    );
    const out = results(result);
    expect(out[0]).toBe(
      `read_file failed: ../other/secret is outside the workspace (${ws}); file tools only reach paths inside it`,
    );
    expect(out[1]).toBe(
      `write_file failed: ../other/new.txt is outside the workspace (${ws}); file tools only reach paths inside it`,
    );
    expect(out[2]).toContain("/etc/hostname is outside the workspace");
    expect(out[3]).toContain(`${stray} is outside the workspace`);
    expect(out[4]).toBe(
      "read_file failed: etc-link/hostname leads outside the workspace through a symlink (to /etc/hostname); refused",
    );
    expect(out[5]).toBe("list_dir failed: etc-link leads outside the workspace through a symlink (to /etc); refused");
    expect(out[6]).toBe(
      `write_file failed: etc-link/${etcProbe} leads outside the workspace through a symlink (to /etc); refused`,
    );
    expect(out[7]).toContain("secret-link leads outside the workspace through a symlink");
    expect(out[8]).toContain("secret-link leads outside the workspace through a symlink");
    expect(out[9]).toBe("write_file failed: dangling is a symlink to a path that does not exist; refused");
    expect(result.toolCalls.slice(0, 10).every((call) => call.status === "failed")).toBe(true);
    expect(out[10]).toBe("fine");

    expect(existsSync(join(root, "other", "new.txt"))).toBe(false);
    expect(existsSync(stray)).toBe(false);
    expect(existsSync(`/etc/${etcProbe}`)).toBe(false);
    expect(existsSync(join(root, "other", "made-through-link"))).toBe(false);
    expect(readFileSync(join(root, "other", "secret"), "utf8")).toBe("top secret\n");
  });
});
