// The published Go client's flow (safespring-community/cloutility-api-client, recorded in
// go-client-flow.json: where it came from is in its `source`) replayed against the emulator over HTTP:
// the same methods, paths, headers and bodies (PascalCase keys included), the spname answer put into
// activate?tsmName= as it is, and every answer decoding into the Go client's structs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator, type EmulatorOptions, SEED } from "../../emulator";
import { goDecodeProblems } from "./go-decode";

interface Step {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Record<string, unknown>;
  status: number;
  decodes: unknown;
}

const recording = JSON.parse(readFileSync(path.join(__dirname, "go-client-flow.json"), "utf8")) as {
  source: { repo: string; commit: string };
  functions: string[];
  steps: Step[];
};

/**
 * Every exported function of the client's `cloutility` package at 3a29ec8 (`git grep "^func [A-Z]\|^func (c
 * \*AuthenticatedClient) [A-Z]" cloutility/`), by file. CreateBusinessUnit and DeleteBusinessUnit send nothing
 * (they return nil); the other 16 each send at least one request.
 */
const CLIENT_FUNCTIONS = {
  "action.go": ["GetActions", "GetAction"],
  "businessunit.go": ["CreateBusinessUnit", "DeleteBusinessUnit", "GetBusinessUnit"],
  "clientOptionSet.go": ["GetClientOptionSet"],
  "cloutility.go": ["Init"],
  "consumer.go": ["CreateConsumer", "DeleteConsumer", "GetConsumers"],
  "domain.go": ["GetDomains"],
  "node.go": ["CreateNode", "DeleteNode", "GetNode", "ActivateNode"],
  "nodeType.go": ["GetNodeType"],
  "nodeoperatingsystem.go": ["GetNodeOperatingSystem"],
  "user.go": ["GetUser"],
};

/** The index of the first recorded step whose `METHOD path` matches. */
function stepIndex(re: RegExp): number {
  const i = recording.steps.findIndex((s) => re.test(`${s.method} ${s.path}`));
  assert.ok(i >= 0, `no recorded step matches ${re}`);
  return i;
}

interface Replayed {
  step: Step;
  status: number;
  text: string;
}

/** Sends the recorded requests in order, as the Go client would, and returns each answer. */
async function replay(em: Emulator): Promise<Replayed[]> {
  const out: Replayed[] = [];
  let token = "";
  let spname: string | undefined;
  for (const step of recording.steps) {
    let target = step.path;
    // The Go client puts the spname answer, as it is, into activate?tsmName=.
    if (/\/node\/activate\?/.test(target)) {
      assert.ok(spname !== undefined, "spname comes before activate");
      target = target.replace(/tsmName=[^&]*/, `tsmName=${spname}`);
    }
    const headers: Record<string, string> = { ...step.headers };
    if (headers.authorization) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (step.body && headers["content-type"]?.startsWith("application/x-www-form-urlencoded")) {
      const form = { ...step.body, password: SEED.users.admin.password } as Record<string, string>;
      body = new URLSearchParams(form).toString();
    } else if (step.body !== undefined) {
      body = JSON.stringify(step.body);
    }
    const res = await fetch(`${em.url}${target}`, { method: step.method, headers, body });
    const text = await res.text();
    out.push({ step, status: res.status, text });
    if (step.path === "/v1/oauth" && res.status === 200) token = JSON.parse(text).access_token;
    if (step.path.endsWith("/node/spname")) spname = text;
  }
  return out;
}

/** What the Go client would fail on in one answer: a status it refuses, a body it cannot decode. */
function goProblems(r: Replayed): string[] {
  const what = `${r.step.method} ${r.step.path}`;
  // Init wants exactly 200; apiRequest any 2xx.
  const okStatus = r.step.path === "/v1/oauth" ? r.status === 200 : r.status >= 200 && r.status < 300;
  if (!okStatus) return [`${what}: HTTP ${r.status} ${r.text.slice(0, 200)}`];
  if (r.step.decodes === "ignored" || r.step.decodes === "raw") return [];
  let value: unknown;
  try {
    value = JSON.parse(r.text);
  } catch {
    return [`${what}: the answer ${JSON.stringify(r.text.slice(0, 60))} is not JSON (json.Unmarshal fails)`];
  }
  return goDecodeProblems(value, r.step.decodes).map((p) => `${what}: ${p}`);
}

describe("the published Go client's flow against the emulator (recorded requests, replayed)", () => {
  it("the recording covers every exported function of the client at its commit", () => {
    assert.equal(recording.source.commit.slice(0, 7), "3a29ec8");
    assert.deepEqual([...recording.functions].sort(), Object.values(CLIENT_FUNCTIONS).flat().sort());
  });

  it("the recording says where it came from and holds the whole flow, PascalCase bodies included", () => {
    assert.equal(recording.source.repo, "safespring-community/cloutility-api-client");
    assert.match(recording.source.commit, /^[0-9a-f]{40}$/);
    const calls = recording.steps.map((s) => `${s.method} ${s.path.replace(/\d+/g, "N").replace(/tsmName=.*/, "tsmName=")}`);
    assert.deepEqual(calls, [
      "POST /vN/oauth",
      "GET /vN/me",
      "GET /vN/bunits?bunitID=N",
      "GET /vN/actions",
      "GET /vN/actions/N",
      "GET /vN/bunits/N/consumers",
      "POST /vN/bunits/N/consumers",
      "GET /vN/nodeoperatingsystems",
      "GET /vN/nodetypes",
      "GET /vN/bunits/N/defaultserver/domains",
      "GET /vN/bunits/N/defaultserver/clientoptionsets",
      "POST /vN/bunits/N/consumers/N/node",
      "GET /vN/bunits/N/consumers/N/node/spname",
      "GET /vN/bunits/N/consumers/N/node/activate?tsmName=",
      "GET /vN/bunits/N/consumers/N/node",
      "GET /vN/bunits/N/consumers/N/node",
      "DELETE /vN/bunits/N/consumers/N/node?deleteAssociations=True",
      "POST /vN/bunits/N/consumers",
      "DELETE /vN/bunits/N/consumers/N",
    ]);
    assert.deepEqual(Object.keys(recording.steps[stepIndex(/^POST .*\/consumers$/)].body ?? {}), ["Name"]);
    assert.ok(Object.keys(recording.steps[stepIndex(/^POST .*\/node$/)].body ?? {}).every((k) => /^[A-Z]/.test(k)));
    assert.equal(recording.steps[0].body?.password, "***", "no password in the recording");
  });

  for (const [label, opts] of [
    ["default readings", {}],
    ["a PUT that replaces", { putReplaces: true }],
  ] as Array<[string, EmulatorOptions]>) {
    it(`every answer is one the Go client accepts and decodes (${label})`, async () => {
      const em = await startEmulator({ quiet: true, ...opts });
      try {
        const answers = await replay(em);
        assert.deepEqual(answers.flatMap(goProblems), []);
        const spname = answers[stepIndex(/\/node\/spname$/)].text;
        assert.match(spname, /^[A-Z0-9_.\-+&]{1,64}$/, "spname answers the bare name");
        // ActivateNode returns the node it reads back: activated under that name, with the password the
        // portal chose (the enroll example prints both) and a name.
        const activated = JSON.parse(answers[stepIndex(/\/node\/activate\?/) + 1].text);
        assert.equal(activated.tsmName, spname);
        assert.match(activated.tsmPassword, /^\S{8,64}$/);
        assert.equal(typeof activated.name, "string");
        assert.equal(JSON.parse(answers[stepIndex(/^GET \/v1\/me$/)].text).name.length > 0, true);
        const unit = JSON.parse(answers[stepIndex(/^GET \/v1\/bunits\?/)].text);
        assert.ok(Array.isArray(unit.businessUnits) && unit.businessUnits.length > 0, "children as a plain array");
        const consumerId = JSON.parse(answers[stepIndex(/^POST .*\/consumers$/)].text).id;
        assert.equal(
          em.state().consumers.some((c) => c.id === consumerId),
          false,
          "deleting the node removed its consumer",
        );
      } finally {
        await em.close();
      }
    });
  }

  it("fails where the Go client would: a JSON-string spname, an empty DELETE answer", async () => {
    for (const [opts, failing] of [
      [{ spname: "json" }, /activate/],
      [{ nodeDelete: "204" }, /DELETE/],
      [{ nodeDelete: "empty" }, /DELETE/],
      [{ goClientReads: "absent" }, /GET \/v1\/bunits\?bunitID=\d+: HTTP 404/],
      [{ goClientReads: "absent" }, /GET \/v1\/actions: HTTP 404/],
    ] as Array<[EmulatorOptions, RegExp]>) {
      const em = await startEmulator({ quiet: true, ...opts });
      try {
        const problems = (await replay(em)).flatMap(goProblems);
        assert.ok(
          problems.some((p) => failing.test(p)),
          `${JSON.stringify(opts)}: ${problems.join("; ")}`,
        );
      } finally {
        await em.close();
      }
    }
  });
});

describe("Go decoding rules of the replay", () => {
  it("keys match case-insensitively; wrong types, non-RFC 3339 times and non-arrays fail", () => {
    assert.deepEqual(goDecodeProblems({ ID: 3, extra: "x", Name: null }, { id: "int", name: "string" }), []);
    assert.equal(goDecodeProblems({ id: "3" }, { id: "int" }).length, 1);
    assert.equal(goDecodeProblems({ createdDate: "2025-01-01" }, { createdDate: "time" }).length, 1);
    assert.equal(goDecodeProblems({ items: {} }, { items: [{ id: "int" }] }).length, 1);
    assert.equal(goDecodeProblems("x", { id: "int" }).length, 1);
  });
});
