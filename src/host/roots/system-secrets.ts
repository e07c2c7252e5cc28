// The machine's secrets under /etc that a confined session never reads, from bash or a file tool: the password and
// group shadow files, the SSH host keys, the TLS private keys' directory. Listed at boot (the host keys' names vary).
import { readdir } from "node:fs/promises";
import { join } from "node:path";

const FIXED = ["/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssl/private"];

export async function systemSecrets(): Promise<string[]> {
  const ssh = await readdir("/etc/ssh").catch(() => [] as string[]);
  const hostKeys = ssh.filter((name) => /^ssh_host_.*_key$/.test(name)).map((name) => join("/etc/ssh", name));
  return [...FIXED, ...hostKeys];
}
