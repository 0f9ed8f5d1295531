// Test support for self-registration: a metadata service per run, the CLI with
// captured output, and temp dirs.
import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import { MetadataService, startMetadataService } from "../../emulator/metadata-service";
import type { InstanceMetadata } from "../../provider/metadata";
import { run } from "../../provider/cli/register";
import { BrokerHandle, startRegistrationBroker } from "../../provider/broker";
import { PortalClient } from "../../provider/portal/client";
import { clientSuite, ORIGIN, startEmulator, type Emulator } from "../support/portal";

export const UUID = "1a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d";
export const TSM_NAME = "WEB01-1A2B3C";
export const CPU_COUNT = 6;

export function instanceDocument(meta: Record<string, string> | undefined, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    uuid: UUID,
    name: "web01",
    hostname: "web01.novalocal",
    launch_index: 0,
    availability_zone: "nova",
    ...(meta ? { meta } : {}),
    ...extra,
  };
}

/** The metadata the registration reads, for an instance with `meta` (and `extra` fields). */
export function md(meta: Record<string, string>, extra: Partial<InstanceMetadata> = {}): InstanceMetadata {
  return {
    uuid: UUID,
    name: "web01",
    hostname: "web01.novalocal",
    publicKeys: {},
    sshKeys: [],
    keys: [],
    devices: [],
    dedicatedCpus: [],
    meta,
    ...extra,
  };
}

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
  /** Requests the metadata service saw. */
  metadataRequests: number;
}

const dirs: string[] = [];

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "registration-test-"));
  dirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

/**
 * Registers the hooks of a registration suite: clientSuite()'s (one portal emulator on 127.0.0.1, started once
 * and reset before each test: state, request log, faults), and a fresh temp dir before each test, faults
 * cleared after each, the temp dirs removed at the end. The hooks fill the fields in: read them inside tests and
 * hooks, not while the suite is being declared.
 */
export function registrationSuite() {
  const portal = clientSuite();
  let dir: string | undefined;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => (portal.emu as Emulator | undefined)?.clearFaults());
  after(() => removeTempDirs());
  const filled = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`registrationSuite: ${name} is read before the suite's hooks set it`);
    return value;
  };
  return {
    get emu(): Emulator {
      return filled<Emulator>(portal.emu, "emu");
    },
    /** This test's temp dir. */
    get dir(): string {
      return filled(dir, "dir");
    },
    /** Where this test's option file goes (its directory does not exist yet). */
    get optionFile(): string {
      return path.join(this.dir, "tsm", "dsm.opt");
    },
    /** Where this test's node password file goes (its directory does not exist yet). */
    get passwordFile(): string {
      return path.join(this.dir, "secret", "node-password");
    },
  };
}

/**
 * Runs `backup-portal register` against a fresh metadata service serving `doc` and `userData`; with a lock file
 * in a temp dir unless `args` name one (tests never use the default lock in /run).
 */
export async function register(
  args: string[],
  opts: { doc: Record<string, unknown> | string; userData?: string | null; env: NodeJS.ProcessEnv },
): Promise<Outcome> {
  const svc: MetadataService = await startMetadataService({ metadata: opts.doc, userData: opts.userData ?? null });
  const out = { stdout: "", stderr: "" };
  try {
    const lock = args.includes("--lock-file") ? [] : ["--lock-file", path.join(tempDir(), "register.lock")];
    const code = await run(["--url", svc.url, "--no-config-drive", ...lock, ...args], {
      out: (t) => {
        out.stdout += t;
      },
      err: (t) => {
        out.stderr += t;
      },
      env: opts.env,
      cpuCount: () => CPU_COUNT,
    });
    return { code, ...out, metadataRequests: svc.requests.length };
  } finally {
    await svc.close();
  }
}

export function modeOf(file: string): number {
  return fs.statSync(file).mode & 0o777;
}

export interface PortalProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A proxy on 127.0.0.1 in front of the portal emulator at `target`: `before` runs before a request is
 * passed on; `rewrite` may replace the JSON body of an answer (a portal that answers differently).
 */
export async function startPortalProxy(
  target: string,
  hooks: {
    before?: (req: { method: string; path: string }) => Promise<void> | void;
    rewrite?: (req: { method: string; path: string }, body: unknown) => unknown;
  } = {},
): Promise<PortalProxy> {
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const info = { method: req.method ?? "GET", path: req.url ?? "/" };
      Promise.resolve(hooks.before?.(info)).then(
        () => {
          const headers = { ...req.headers, host: to.host };
          const out = http.request({ host: to.hostname, port: to.port, method: info.method, path: info.path, headers }, (answer) => {
            const body: Buffer[] = [];
            answer.on("data", (c: Buffer) => body.push(c));
            answer.on("end", () => {
              let data = Buffer.concat(body);
              const json = /json/.test(String(answer.headers["content-type"] ?? ""));
              if (hooks.rewrite && json && data.length)
                data = Buffer.from(JSON.stringify(hooks.rewrite(info, JSON.parse(data.toString("utf8")))));
              const h = { ...answer.headers, "content-length": String(data.length) };
              delete h["transfer-encoding"];
              res.writeHead(answer.statusCode ?? 502, h);
              res.end(data);
            });
          });
          out.on("error", () => res.destroy());
          out.end(Buffer.concat(chunks));
        },
        () => res.destroy(),
      );
    });
  });
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => done());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

/**
 * Puts a directory where `file` should go as soon as the command has written its temp file beside it (before the
 * portal call, which the caller delays with a latency fault), so the flag check at start finds the path free and
 * the move after the portal accepted fails. Resolves when placed; bounded to 20 s.
 */
export async function blockWhenTempAppears(file: string): Promise<void> {
  const dir = path.dirname(file);
  const deadline = Date.now() + 20000;
  while (Date.now() < deadline) {
    const names = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    if (names.some((n) => n !== path.basename(file))) {
      fs.mkdirSync(path.join(file, "blocker"), { recursive: true });
      return;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`no temp file appeared beside ${file} in 20 s`);
}

/** An emulator and an in-process registration broker with `secret`, registering through the emulator's admin. */
export interface BrokerOnEmulator {
  emu: Emulator;
  client: PortalClient;
  broker: BrokerHandle;
}

export async function startBrokerOnEmulator(secret: string): Promise<BrokerOnEmulator> {
  const emu = await startEmulator({ port: 0, quiet: true });
  const client = new PortalClient({ url: emu.url, origin: ORIGIN, clientId: "emulator", username: "admin", password: "admin" });
  const broker = await startRegistrationBroker({ secret, client });
  return { emu, client, broker };
}

export async function stopBrokerOnEmulator(b: Partial<BrokerOnEmulator>): Promise<void> {
  await b.broker?.close();
  b.client?.close();
  await b.emu?.close();
}
