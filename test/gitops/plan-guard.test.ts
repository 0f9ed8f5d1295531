// The GitOps plan guard (scripts/plan-guard.js, issue 23 item 7) on recorded `pulumi preview --json` digests
// (test/gitops/fixtures, in the shape pulumi v3.259.0 prints: pkg/backend/display/json.go), run as the
// workflow runs it: a real process, its exit status and what it prints.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { BusinessUnit } from "../../provider/resources/business-unit";
import { Consumer } from "../../provider/resources/consumer";
import { Node } from "../../provider/resources/node";
import { NodeProxy } from "../../provider/resources/node-proxy";
import { PACKAGE, RESOURCES, tokenOf } from "../../provider/plugin/resources";
import { installMocks, settle } from "../support/mocks";

const ROOT = path.join(__dirname, "..", "..");
const SCRIPT = path.join(ROOT, "scripts", "plan-guard.js");
const fixture = (name: string) => path.join(__dirname, "fixtures", `${name}.json`);
const guard = require(SCRIPT) as {
  changesOf(digest: unknown): Array<{ kind: string; name: string; urn: string; op: string; protected: boolean }>;
  shapeProblem(digest: unknown): string | undefined;
  judge(digest: unknown, opts?: { maxDeletes?: number; allow?: boolean }): { refused: boolean; reasons: string[] };
  TYPE_PREFIX: string;
  PLUGIN_PREFIX: string;
  PROVIDER_TYPE: string;
  OPS: Record<string, string | null>;
  LABEL: string;
};
const load = (name: string) => JSON.parse(fs.readFileSync(fixture(name), "utf8"));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: ROOT, encoding: "utf8", timeout: 20_000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

/** The table's data rows (after the header and its rule). */
function rows(out: string): string[][] {
  const lines = out.split("\n");
  const head = lines.findIndex((l) => /^kind\s+name\s+URN\s+op$/.test(l));
  if (head < 0) return [];
  const body: string[][] = [];
  for (const l of lines.slice(head + 2)) {
    if (!l.trim() || l.startsWith("plan-guard:")) break;
    body.push(l.split(/\s{2,}/));
  }
  return body;
}

describe("plan guard (scripts/plan-guard.js) on recorded preview JSON", function () {
  this.timeout(60_000);

  it("no change: passes and says so", () => {
    const r = run(fixture("no-change"));
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, /the plan deletes and replaces nothing/);
    assert.equal(r.err, "");
  });

  it("one delete: one consumer is over the default limit of 0; --max-deletes 1 lets it through", () => {
    const r = run(fixture("one-delete"));
    assert.equal(r.status, 1);
    assert.deepEqual(rows(r.out), [
      ["Consumer", "acme/archive", "urn:pulumi:prod::backup-portal::pulumi-nodejs:dynamic/backup-portal:Consumer::acme/archive", "delete"],
    ]);
    assert.match(r.err, /refused: the plan deletes or replaces 1 consumer\(s\) and node\(s\); at most 0 may go without the label/);
    assert.match(r.err, /add the label "allow-tenant-deletion"/);
    const within = run(fixture("one-delete"), "--max-deletes", "1");
    assert.equal(within.status, 0, within.err);
    assert.equal(rows(within.out).length, 1, "the table is printed when it passes too");
    assert.equal(run(fixture("one-delete"), "--max-deletes=1").status, 0);
  });

  it("all deleted (a misspelt tenants key on an unprotected stack): refused for the business units whatever the limit", () => {
    const r = run(fixture("all-deleted"), "--max-deletes", "100");
    assert.equal(r.status, 1);
    const table = rows(r.out);
    assert.equal(table.length, 14, "every delete is listed, the node proxy relation too");
    const byKind = (k: string) => table.filter((row) => row[0] === k).map((row) => row[1]);
    assert.deepEqual(byKind("BusinessUnit").sort(), ["acme", "acme/acme-labs", "globex"]);
    assert.equal(byKind("Consumer").length, 5);
    assert.equal(byKind("Node").length, 5);
    assert.deepEqual(byKind("NodeProxy"), ["acme/backup-proxy>web01"]);
    assert.ok(table.every((row) => row[3] === "delete"));
    assert.match(r.err, /refused: the plan deletes or replaces 3 business unit\(s\)/);
    assert.doesNotMatch(r.err, /consumer\(s\) and node\(s\)/, "10 consumers and nodes are within a limit of 100");
    const byDefault = run(fixture("all-deleted"));
    assert.match(byDefault.err, /10 consumer\(s\) and node\(s\); at most 0/, "the node proxy is listed, not counted");
  });

  it("the label: --allow prints the same table and passes", () => {
    const r = run(fixture("all-deleted"), "--allow");
    assert.equal(r.status, 0, r.err);
    assert.equal(rows(r.out).length, 14);
    assert.match(r.out, /allowed by the label "allow-tenant-deletion": the plan deletes or replaces 3 business unit/);
  });

  it("a replace: a consumer and its node replaced count as two against the limit", () => {
    const r = run(fixture("replace"));
    assert.equal(r.status, 1);
    assert.deepEqual(
      rows(r.out).map((row) => [row[0], row[1], row[3]]),
      [
        ["Consumer", "acme/web01", "replace"],
        ["Node", "acme/web01", "replace"],
      ],
    );
    assert.equal(run(fixture("replace"), "--max-deletes", "2").status, 0);
  });

  it("a delete of a protected business unit: refused, marked protected, the preview's error counted", () => {
    const r = run(fixture("protected-delete"), "--max-deletes", "5");
    assert.equal(r.status, 1);
    const table = rows(r.out);
    assert.deepEqual(
      table.map((row) => [row[0], row[1], row[3]]),
      [
        ["Node", "globex/files", "delete"],
        ["Consumer", "globex/files", "delete"],
        ["BusinessUnit", "globex", "delete (protected: the up fails on it)"],
      ],
    );
    assert.match(r.out, /the preview reported 2 error\(s\)/);
    assert.match(r.err, /protect: false/);
  });

  it("--show-replacement-steps: create-replacement, replace and delete-replaced of one URN are one replace", () => {
    const digest = JSON.parse(fs.readFileSync(fixture("replace"), "utf8"));
    const [root, consumer, node] = digest.steps;
    const extra = (s: { urn: string; oldState: unknown; newState: unknown }, op: string) => ({ ...s, op });
    digest.steps = [
      root,
      extra(consumer, "create-replacement"),
      consumer,
      extra(node, "create-replacement"),
      node,
      extra(node, "delete-replaced"),
    ];
    digest.steps.push(extra(consumer, "delete-replaced"));
    assert.deepEqual(
      guard.changesOf(digest).map((c) => `${c.kind} ${c.name} ${c.op}`),
      ["Consumer acme/web01 replace", "Node acme/web01 replace"],
    );
  });

  it("a resource under a component parent is still known by its own type", () => {
    const urn = "urn:pulumi:prod::backup-portal::acme:index:Tenant$pulumi-nodejs:dynamic/backup-portal:BusinessUnit::acme";
    assert.deepEqual(guard.changesOf({ steps: [{ op: "delete", urn }] }), [
      { kind: "BusinessUnit", name: "acme", urn, op: "delete", protected: false },
    ]);
  });

  it("fails closed on what is no preview digest, and on bad arguments (exit 2, one line)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plan-guard-"));
    try {
      const empty = path.join(dir, "empty.json");
      fs.writeFileSync(empty, "");
      const list = path.join(dir, "list.json");
      fs.writeFileSync(list, "[]");
      const cases: Array<[string[], RegExp]> = [
        [[empty], /empty\.json: not JSON; save the output of `pulumi preview --json`/],
        [[list], /list\.json: not the output of `pulumi preview --json`/],
        [[path.join(dir, "missing.json")], /missing\.json: cannot read it \(ENOENT\)/],
        [[], /no preview file; usage: npm run plan-guard --/],
        [[fixture("no-change"), "--max-deletes", "-1"], /--max-deletes: expected a whole number, got "-1"/],
        [[fixture("no-change"), "--max-deletes"], /--max-deletes: expected a whole number, got ""/],
        [[fixture("no-change"), "--alow"], /unknown option --alow/],
      ];
      for (const [args, message] of cases) {
        const r = run(...args);
        assert.equal(r.status, 2, args.join(" "));
        assert.match(r.err, message);
        assert.equal(r.err.trim().split("\n").length, 1, "one line, no stack trace");
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the plugin's resources (backupportal:index:*): a BusinessUnit never goes without the label, consumers and nodes up to the limit", () => {
    const r = run(fixture("plugin-delete"), "--max-deletes", "5");
    assert.equal(r.status, 1, r.out);
    assert.deepEqual(
      rows(r.out).map((row) => [row[0], row[1], row[3]]),
      [
        ["Node", "webNode", "delete"],
        ["Consumer", "web", "delete"],
        ["BusinessUnit", "acme", "delete"],
      ],
    );
    assert.match(r.err, /refused: the plan deletes or replaces 1 business unit\(s\)/);
    assert.doesNotMatch(r.out, /within the limits/);
    assert.equal(run(fixture("plugin-delete"), "--allow").status, 0);
    const digest = load("plugin-delete");
    digest.steps = digest.steps.filter((s: { urn: string }) => !s.urn.includes(":BusinessUnit::"));
    assert.equal(guard.judge(digest, { maxDeletes: 2 }).refused, false, "a consumer and a node within a limit of 2");
    assert.match(guard.judge(digest, { maxDeletes: 1 }).reasons.join(), /2 consumer\(s\) and node\(s\); at most 1/);
  });

  it("a changed url or username of the plugin's provider: the provider's replace and each resource's are refused", () => {
    const r = run(fixture("plugin-url-replace"), "--max-deletes", "5");
    assert.equal(r.status, 1, r.out);
    assert.deepEqual(
      rows(r.out).map((row) => [row[0], row[1], row[3]]),
      [
        ["provider", "default", "replace"],
        ["BusinessUnit", "acme", "replace"],
        ["Consumer", "web", "replace"],
        ["Node", "webNode", "replace"],
      ],
    );
    assert.match(r.err, /refused: the plan replaces 1 backupportal provider\(s\) \(a changed url or username\)/);
    assert.equal(run(fixture("plugin-url-replace"), "--allow").status, 0);
  });

  it("a replaced plugin provider counts as replacing what it manages, whether the steps show those replaces or not", () => {
    // Its resources listed as `same` (--show-sames): each is a replace, found by the provider its state names.
    const r = run(fixture("provider-replace"), "--max-deletes", "5");
    assert.equal(r.status, 1, r.out);
    assert.deepEqual(
      rows(r.out).map((row) => [row[0], row[3]]),
      [
        ["provider", "replace"],
        ["BusinessUnit", "replace"],
        ["Consumer", "replace"],
        ["Node", "replace"],
      ],
    );
    // Its resources not listed at all: the provider alone is refused.
    const digest = load("provider-replace");
    digest.steps = digest.steps.filter((s: { op: string }) => s.op !== "same");
    const alone = guard.judge(digest, { maxDeletes: 100 });
    assert.equal(alone.refused, true);
    assert.match(alone.reasons.join(), /replaces 1 backupportal provider/);
    // Another provider's replace (the dynamic path's, or another package's) is not this rule's.
    digest.steps[0].urn = digest.steps[0].urn.replace("backupportal", "aws");
    digest.steps[0].oldState.type = digest.steps[0].newState.type = "pulumi:providers:aws";
    assert.equal(guard.judge(digest).refused, false);
  });

  it("fails closed (exit 2) on a digest shape it does not know", () => {
    const cases: Array<[string, RegExp]> = [
      ["shape-empty-object", /no "steps" array/],
      ["shape-summary-only", /no "steps" array/],
      ["shape-steps-not-array", /no "steps" array/],
      ["shape-urn-not-string", /steps\[1\] has no string "urn"/],
      ["shape-op-case", /steps\[1\] has an op the engine does not write: "Delete"/],
      ["shape-summary-more", /"changeSummary" counts 5 delete but the steps show 0/],
    ];
    for (const [name, message] of cases) {
      const r = run(fixture(name), "--allow");
      assert.equal(r.status, 2, `${name}: ${r.out}${r.err}`);
      assert.match(r.err, message, name);
      assert.match(r.err, /not the output of `pulumi preview --json` this guard knows/);
      assert.equal(r.err.trim().split("\n").length, 1, "one line");
    }
  });

  it("knows exactly the engine's step ops (pulumi pkg/v3 v3.260.0 resource/deploy/step.go StepOps), in their case only", () => {
    const engine = [
      "same",
      "create",
      "update",
      "delete",
      "replace",
      "create-replacement",
      "delete-replaced",
      "read",
      "read-replacement",
      "refresh",
      "discard",
      "discard-replaced",
      "remove-pending-replace",
      "import",
      "import-replacement",
      "diff",
      "extend-parameterize",
    ];
    assert.deepEqual(Object.keys(guard.OPS), engine);
    const urn = "urn:pulumi:prod::tenants::backupportal:index:Consumer::web";
    for (const op of engine) {
      for (const other of [op.toUpperCase(), op[0].toUpperCase() + op.slice(1), ` ${op}`]) {
        assert.match(String(guard.shapeProblem({ steps: [{ op: other, urn }] })), /an op the engine does not write/, other);
      }
      assert.equal(guard.shapeProblem({ steps: [{ op, urn }] }), undefined, op);
    }
    for (const op of ["__proto__", "constructor", "toString", 1, null]) {
      assert.match(String(guard.shapeProblem({ steps: [{ op, urn }] })), /an op the engine does not write/, String(op));
    }
    const counted = Object.entries(guard.OPS).filter(([, effect]) => effect);
    assert.deepEqual(Object.fromEntries(counted), {
      delete: "delete",
      replace: "replace",
      "create-replacement": "replace",
      "delete-replaced": "replace",
      "remove-pending-replace": "delete",
      "import-replacement": "replace",
    });
    for (const [op, effect] of counted)
      assert.deepEqual(
        guard.changesOf({ steps: [{ op, urn }] }).map((c) => c.op),
        [effect],
      );
    assert.equal(guard.changesOf({ steps: [{ op: "__proto__", urn }] }).length, 0);
  });

  it("knows the plugin's resources by the token each registers with", () => {
    const steps = RESOURCES.map((r) => ({ op: "delete", urn: `urn:pulumi:test::p::${tokenOf(r)}::${r.spec.name}` }));
    const kinds = guard.changesOf({ steps }).map((c) => c.kind);
    assert.deepEqual(
      kinds,
      RESOURCES.map((r) => r.spec.name),
    );
    for (const kind of ["BusinessUnit", "Consumer", "Node"]) assert.ok(kinds.includes(kind), kind);
    assert.equal(guard.PLUGIN_PREFIX, `${PACKAGE}:index:`);
    assert.equal(guard.PROVIDER_TYPE, `pulumi:providers:${PACKAGE}`);
  });

  it("npm run plan-guard runs it", () => {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const r = spawnSync(npm, ["run", "--silent", "plan-guard", "--", fixture("one-delete")], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /acme\/archive/);
  });

  it("knows this product's resources by the type each class registers with", async () => {
    const recorded = await installMocks();
    new BusinessUnit("kind", { parentId: 1, name: "bu", registrationNumber: "1", timeZone: "UTC" });
    new Consumer("kind-c", { businessUnitId: 1, name: "c" });
    new Node("kind-c", {
      businessUnitId: 1,
      consumerId: 1,
      operatingSystem: "Linux",
      type: "File server",
      domain: "STANDARD",
      cpuCount: 1,
    });
    new NodeProxy("kind-a>b", { businessUnitId: 1, agentConsumerId: 1, targetConsumerId: 2 });
    const types = (await settle(recorded, "kind", 4)).map((r) => r.type).sort();
    const kinds = ["BusinessUnit", "Consumer", "Node", "NodeProxy"];
    assert.deepEqual(types, kinds.map((k) => guard.TYPE_PREFIX + k).sort());
    const steps = recorded.map((r) => ({ op: "delete", urn: `urn:pulumi:test::backup-portal::${r.type}::${r.name}` }));
    assert.deepEqual(
      guard
        .changesOf({ steps })
        .map((c) => c.kind)
        .sort(),
      kinds,
    );
  });
});
