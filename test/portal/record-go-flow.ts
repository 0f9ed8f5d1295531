// Records what the published Go client of the portal API
// (safespring-community/cloutility-api-client) sends, from the emulator's request log, into
// test/portal/go-client-flow.json. CI cannot run Go; test/portal/go-client-flow.test.ts replays the
// recording against the emulator and checks that the answers decode into the Go client's structs.
//
//   npx ts-node --transpile-only test/portal/record-go-flow.ts <go-flow-binary> <commit>
//
// <go-flow-binary>: test/portal/go-flow/main.go, built (GOPATH mode, standard library only; how: its
// header) against the client's `cloutility` package at <commit>. It logs in with CLIENT_ID, ORIGIN,
// USERNAME, PASSWORD and BASE_URL from the environment and calls every exported function of the package
// once, printing "called <Name>" for each; those lines are recorded as `functions`.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import * as path from "node:path";
import { SEED, startEmulator } from "../../emulator";
import type { RequestDetails } from "../../emulator";

/**
 * What the Go client decodes from each answer, in its own struct field names and Go types (from its
 * cloutility/*.go at the recorded commit). "raw": the body is used as it is; "ignored": not read.
 * Go's encoding/json matches keys case-insensitively and ignores unknown ones.
 */
const LIST = (item: Record<string, unknown>) => ({ href: "string", first: "string", items: [item], total: "int", offset: "int" });
const DECODES: Array<[RegExp, unknown]> = [
  [/^POST \/v1\/oauth$/, { access_token: "string", token_type: "string", refresh_token: "string", expires_in: "int" }],
  [/^GET \/v1\/me$/, { businessUnit: { name: "string", id: "int" }, href: "string", name: "string", id: "int", locked: "bool" }],
  [
    /^GET \/v1\/bunits$/,
    {
      name: "string",
      groupName: "string",
      businessUnits: [{ name: "string", groupName: "string", id: "int", invoiceDay: "int", reportRemotely: "bool" }],
      id: "int",
      invoiceDay: "int",
      reportRemotely: "bool",
    },
  ],
  [/^GET \/v1\/actions$/, LIST({ createdDate: "time", href: "string", name: "string", id: "int" })],
  [/^GET \/v1\/actions\/\d+$/, { createdDate: "time", href: "string", name: "string", id: "int" }],
  [/^(GET|POST) \/v1\/bunits\/\d+\/consumers$/, "CONSUMERS"],
  [/^DELETE \/v1\/bunits\/\d+\/consumers\/\d+$/, "ignored"],
  [
    /^GET \/v1\/nodeoperatingsystems$/,
    LIST({
      createdDate: "time",
      href: "string",
      name: "string",
      shortName: "string",
      supportedNodeTypes: [{ createdDate: "time", name: "string", shortName: "string", id: "int" }],
      id: "int",
    }),
  ],
  [/^GET \/v1\/nodetypes$/, LIST({ createdDate: "time", href: "string", name: "string", shortName: "string", id: "int" })],
  [
    /^GET \/v1\/bunits\/\d+\/defaultserver\/domains$/,
    LIST({
      createdDate: "time",
      href: "string",
      name: "string",
      description: "string",
      backupRetention: "int",
      archiveRetention: "int",
      id: "int",
      missingInTsm: "bool",
    }),
  ],
  [/^GET \/v1\/bunits\/\d+\/defaultserver\/clientoptionsets$/, LIST({ createdDate: "time", href: "string", name: "string", id: "int" })],
  [/^GET \/v1\/bunits\/\d+\/consumers\/\d+\/node\/spname$/, "raw"],
  [/^GET \/v1\/bunits\/\d+\/consumers\/\d+\/node\/activate$/, "ignored"],
  [
    /^(GET|POST|DELETE) \/v1\/bunits\/\d+\/consumers\/\d+\/node$/,
    { name: "string", href: "string", tsmName: "string", tsmPassword: "string", id: "int" },
  ],
];
const CONSUMER = { createdDate: "time", href: "string", name: "string", id: "int" };

function decodesOf(method: string, pathOnly: string): unknown {
  const found = DECODES.find(([re]) => re.test(`${method} ${pathOnly}`));
  if (!found) throw new Error(`no decode entry for ${method} ${pathOnly}`);
  if (found[1] !== "CONSUMERS") return found[1];
  return method === "GET" ? LIST(CONSUMER) : CONSUMER;
}

async function main(): Promise<void> {
  const [binary, commit] = process.argv.slice(2);
  if (!binary || !/^[0-9a-f]{40}$/.test(commit ?? "")) throw new Error("usage: record-go-flow.ts <go-flow-binary> <40-hex commit>");
  const em = await startEmulator({ quiet: true });
  try {
    const admin = SEED.users.admin;
    // Run asynchronously: the emulator answers in this process.
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        binary,
        [],
        {
          env: {
            ...process.env,
            CLIENT_ID: SEED.clients.emulator.clientId,
            ORIGIN: SEED.origin,
            USERNAME: admin.username,
            PASSWORD: admin.password,
            BASE_URL: em.url,
          },
          timeout: 60_000,
        },
        (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${out}${stderr}`)) : resolve(out)),
      );
    });
    const functions = stdout
      .split("\n")
      .filter((l) => l.startsWith("called "))
      .map((l) => l.slice("called ".length));
    const steps = em.requestDetails().map((d: RequestDetails) => {
      const pathOnly = d.path.split("?")[0];
      return {
        method: d.method,
        path: d.path,
        headers: d.headers,
        ...(d.body !== undefined ? { body: d.body } : {}),
        status: d.status,
        answerType: d.answerType,
        decodes: decodesOf(d.method, pathOnly),
      };
    });
    const out = {
      source: {
        repo: "safespring-community/cloutility-api-client",
        commit,
        files: "cloutility/*.go",
        how:
          "every exported function of its cloutility package called once (test/portal/go-flow/main.go; `functions`, in order) " +
          "against the emulator; requests from the emulator's request log (GET /_emulator/requests?details=true), secrets replaced " +
          "by ***; `decodes` is what the client unmarshals from each answer (its struct json tags and Go types), read from its source",
        recorder: "test/portal/record-go-flow.ts",
        program: "test/portal/go-flow/main.go",
      },
      functions,
      steps,
    };
    const file = path.join(__dirname, "go-client-flow.json");
    writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`wrote ${steps.length} requests to ${file}`);
  } finally {
    await em.close();
  }
}

main().catch((err: unknown) => {
  console.error((err as Error).message);
  process.exit(1);
});
