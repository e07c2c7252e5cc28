// The deployment files are real: the Kubernetes Deployment's and the systemd unit's command lines start a host on a
// real PostgreSQL store (their placeholders filled in), which answers /healthz and ends cleanly on SIGTERM; the probes,
// ports, secrets and deadlines they name agree with each other and with the host. HAProxy accepts its config with
// static hosts, a DNS name, or both (test/fleet/fleet-proxy.test.ts runs a fleet behind it).
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { CLI, REPO_ROOT } from "../support/cli-path.js";
import { freePort } from "../support/free-port.js";
import { tempDir } from "../support/host.js";
import { postgresPerFile } from "../support/postgres.js";
import { waitFor } from "../support/tools.js";

const cluster = postgresPerFile();

interface Container {
  image: string;
  command?: string[];
  args: string[];
  env: Array<{ name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  ports: Array<{ name: string; containerPort: number }>;
  readinessProbe: { httpGet: { path: string; port: string } };
  livenessProbe: { httpGet: { path: string; port: string } };
  lifecycle: { preStop: { exec: { command: string[] } } };
  volumeMounts: Array<{ name: string; mountPath: string }>;
  securityContext: {
    procMount?: string;
    privileged?: boolean;
    capabilities?: { add?: string[]; drop?: string[] };
    allowPrivilegeEscalation?: boolean;
  };
}

const read = (path: string) => readFileSync(join(REPO_ROOT, "deploy", path), "utf8");
const yamlDocs = (path: string) => parseAllDocuments(read(path)).map((doc) => doc.toJSON() as Record<string, any>);

/** Runs the host with these flags: healthy, then SIGTERM answers 503 and exits 0. */
async function runsAndEnds(flags: string[], port: number): Promise<void> {
  const child = spawn(process.execPath, [CLI, "serve", ...flags], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (log += chunk));
  const exited = once(child, "exit") as Promise<[number | null]>;
  const health = (path = "/healthz") =>
    fetch(`http://127.0.0.1:${port}${path}`).then(
      async (response) => ({
        status: response.status,
        body: (await response.json()) as { status: string; hostId: string },
      }),
      () => null,
    );
  try {
    const healthy = await waitFor(
      `the host to answer /healthz (${log})`,
      async () => ((await health())?.status === 200 ? health() : null),
      30_000,
    );
    expect(healthy?.body.status).toBe("ok");
    // Ready once its standby pool is started (the readiness probe's path).
    await waitFor(`the host to answer /readyz (${log})`, async () => (await health("/readyz"))?.status === 200, 30_000);
    child.kill("SIGTERM");
    const [code] = await exited;
    expect(code, log).toBe(0);
  } finally {
    child.kill("SIGKILL");
  }
}

describe("deploy/kubernetes", () => {
  const deployment = yamlDocs("kubernetes/deployment.yaml")[0]!;
  const services = yamlDocs("kubernetes/service.yaml");
  const secret = yamlDocs("kubernetes/secret.yaml")[0]!;
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0] as Container;

  it("probes /readyz and /healthz on the port the host listens on; gives the drain its time before SIGKILL", () => {
    const listen = container.args.find((arg) => arg.startsWith("--listen="))!;
    const port = container.ports.find((candidate) => candidate.name === container.readinessProbe.httpGet.port)!;
    expect(container.readinessProbe.httpGet.path).toBe("/readyz");
    expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: container.readinessProbe.httpGet.port });
    expect(listen.endsWith(`:${port.containerPort}`)).toBe(true);
    const drainMs = Number(container.args.find((arg) => arg.startsWith("--drain-ms="))!.split("=")[1]);
    const preStopS = Number(container.lifecycle.preStop.exec.command.at(-1));
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(preStopS * 1000 + drainMs);
  });

  it("runs the image the Containerfile builds, as its user, with what bubblewrap needs and no privilege", () => {
    const containerfile = readFileSync(join(REPO_ROOT, "Containerfile"), "utf8");
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
    expect(container.image).toBe(`acp-session-host:${version}`);
    expect(containerfile).toMatch(/^ENTRYPOINT \["acp-session-host"\]$/m);
    const uid = Number(/useradd --uid (\d+)/.exec(containerfile)![1]);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: uid });
    // deploy/container.md: an unmasked /proc (in a user namespace of the pod's own), no capability, no privilege.
    expect(pod.hostUsers).toBe(false);
    expect(container.securityContext).toMatchObject({
      procMount: "Unmasked",
      capabilities: { drop: ["ALL"] },
      allowPrivilegeEscalation: false,
    });
    expect(container.securityContext.privileged).toBeUndefined();
    expect(container.securityContext.capabilities?.add).toBeUndefined();
  });

  it("reads the database URL and the tokens file from the Secret's keys", () => {
    expect(secret.kind).toBe("Secret");
    const keys = Object.keys(secret.stringData);
    for (const variable of container.env) {
      const ref = variable.valueFrom?.secretKeyRef;
      if (ref) expect(keys).toContain(ref.key);
    }
    const tokens = pod.volumes.find((volume: { secret?: unknown }) => volume.secret);
    expect(tokens.secret.secretName).toBe(secret.metadata.name);
    for (const item of tokens.secret.items) expect(keys).toContain(item.key);
    const mount = container.volumeMounts.find((candidate) => candidate.name === tokens.name)!;
    const tokensFlag = container.args.find((arg) => arg.startsWith("--tokens-file="))!;
    expect(tokensFlag).toBe(`--tokens-file=${mount.mountPath}/${tokens.secret.items[0].path}`);
  });

  it("the Services select the Deployment's pods and reach its ACP port; one is headless for HAProxy's DNS", () => {
    for (const service of services) {
      expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
      expect(container.ports.map((port) => port.name)).toContain(service.spec.ports[0].targetPort);
    }
    expect(services.some((service) => service.spec.clusterIP === "None")).toBe(true);
  });

  it("its command line starts a host on a real store, healthy on /healthz, that ends with exit 0 on SIGTERM", async () => {
    const port = await freePort();
    const dir = tempDir();
    const database = await cluster.database();
    writeFileSync(join(dir, "tokens"), "");
    const flags = container.args.map((arg) =>
      arg
        .replace("$(DATABASE_URL)", database)
        .replace("$(POD_NAME)", "pod-0")
        .replace(/^--listen=.*/, `--listen=127.0.0.1:${port}`)
        .replace(/^--tokens-file=.*/, `--tokens-file=${join(dir, "tokens")}`)
        .replace(/^--workspace-root=.*/, `--workspace-root=${dir}`)
        .replace(/^--state-dir=.*/, `--state-dir=${join(dir, "state")}`)
        .replace(/^--metrics-listen=.*/, "--metrics-listen=127.0.0.1:0"),
    );
    // The image's entry point is acp-session-host (Containerfile): the Deployment gives it only arguments.
    expect(container.command).toBeUndefined();
    expect(flags[0]).toBe("serve");
    await runsAndEnds(flags.slice(1), port);
  });
});

describe("deploy/systemd", () => {
  const unit = read("systemd/acp-session-host.service");
  const setting = (name: string) => new RegExp(`^${name}=(.*)$`, "m").exec(unit)?.[1];

  it("stops with SIGTERM and gives the drain its time", () => {
    expect(setting("KillSignal")).toBe("SIGTERM");
    const drainMs = Number(/--drain-ms (\d+)/.exec(setting("ExecStart")!)![1]);
    expect(Number(setting("TimeoutStopSec")) * 1000).toBeGreaterThan(drainMs);
  });

  it("its ExecStart starts a host on a real store, healthy on /healthz, that ends with exit 0 on SIGTERM", async () => {
    const port = await freePort();
    const dir = tempDir();
    writeFileSync(join(dir, "tokens"), "");
    const database = await cluster.database();
    const words = setting("ExecStart")!.split(/\s+/);
    expect(words.slice(1, 3)).toEqual(["/opt/acp-session-host/dist/src/cli.js", "serve"]);
    const flags = words
      .slice(3)
      .join(" ")
      .replace("${DATABASE_URL}", database)
      .replace("%H", "unit-host")
      .replace(/--listen \S+/, `--listen 127.0.0.1:${port}`)
      .replace(/--tokens-file \S+/, `--tokens-file ${join(dir, "tokens")}`)
      .replace(/--workspace-root \S+/, `--workspace-root ${dir}`)
      .replace(/--state-dir \S+/, `--state-dir ${join(dir, "state")}`)
      .split(" ");
    await runsAndEnds(flags, port);
  });
});

describe("deploy/haproxy.cfg", () => {
  const statics = Object.fromEntries(
    Array.from({ length: 8 }, (_, index) => [`ACP_HOST_${index + 1}`, `127.0.0.1:${8081 + index}`]),
  );
  const dns = { ACP_HOSTS_DNS: "localhost", ACP_HOSTS_PORT: "8081" };

  it.each([
    ["static hosts", statics],
    ["a DNS name", dns],
    ["both at once", { ...statics, ...dns }],
  ])("haproxy -c accepts it with %s", async (_name, hosts) => {
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("ACP_")));
    const { stdout } = await promisify(execFile)("haproxy", ["-c", "-f", join(REPO_ROOT, "deploy/haproxy.cfg")], {
      env: { ...inherited, ...hosts },
    });
    expect(stdout).toContain("Configuration file is valid");
  });
});
