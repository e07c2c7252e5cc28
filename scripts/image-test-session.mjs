// Part of scripts/image-test: drives the host inside the image (the podman command line in argv) with this package's
// own client, over the container's stdio: a session in /workspaces runs a bash command that only a sandbox answers
// as checked here (its own pid namespace: the command is pid 1's child, a handful of processes in all; no network
// device but loopback), then a write_file, read back by bash.
import { HostClient } from "../dist/src/client/index.js";

const [command, ...args] = process.argv.slice(2);
const host = await HostClient.spawn({ command, args, permission: "allow", stderr: "inherit" });
try {
  const { sessionId } = await host.newSession(process.env.IMAGE_TEST_CWD ?? "/workspaces", { mode: "auto" });
  const probe =
    "echo pid=$$ procs=$(ls /proc | grep -c '^[0-9]') nets=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ,) user=$(id -u)";
  const steps = [
    { tool: "write_file", input: { path: "hello.txt", content: "from the image\n" } },
    { tool: "bash", input: { command: `${probe}; cat hello.txt` } },
    { say: "done" },
  ];
  const turn = await host.prompt(sessionId, `/script ${JSON.stringify(steps)}`, {
    signal: AbortSignal.timeout(120_000),
  });
  const bash = turn.toolCalls.find((call) => call.title.startsWith("echo pid"));
  const output = `${bash?.output ?? ""}${JSON.stringify(bash?.rawOutput ?? "")}`;
  console.log(`image-test: the session's bash said: ${JSON.stringify(bash?.rawOutput ?? bash?.output ?? null)}`);
  const fields = Object.fromEntries(
    [...output.matchAll(/(pid|procs|nets|user)=([^\s"\\]*)/g)].map((m) => [m[1], m[2]]),
  );
  const problems = [];
  if (turn.stopReason !== "end_turn") problems.push(`the turn ended ${turn.stopReason}`);
  if (bash?.status !== "completed") problems.push(`bash ${bash?.status ?? "never ran"}`);
  if (!output.includes("from the image")) problems.push("bash did not read the file the session wrote");
  // In a pid namespace of its own the shell is a low pid and sees only the sandbox's few processes.
  if (!(Number(fields.pid) < 10 && Number(fields.procs) < 10))
    problems.push("bash was not in a pid namespace of its own");
  if (fields.nets !== "lo,")
    problems.push(`bash saw network devices ${fields.nets}: not a network namespace of its own`);
  if (problems.length > 0) throw new Error(problems.join("; "));
  console.log("image-test: a sandboxed command ran in a session");
} finally {
  await host.dispose();
}
