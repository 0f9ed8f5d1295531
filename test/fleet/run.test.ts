import { strict as assert } from "assert";
import { ConfigMap } from "../../stacks/fleet/config";
import {
  changeCounts,
  CreateStack,
  errorSummary,
  MAX_CONFIG_ARG_BYTES,
  splitConfigForArgs,
  findPulumiCli,
  formatFleetReport,
  OperationOptions,
  OpCounts,
  PulumiCliMissingError,
  runFleet,
  StackLike,
  staleGroups,
} from "../../stacks/fleet/run";
import { tmpDir } from "./helpers";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Call {
  stack: string;
  op: string;
  opts?: OperationOptions;
  config?: ConfigMap;
}

/** A fake workspace: stacks that record their calls and answer per stack name. */
function fakeWorkspace(
  behave: (stack: string, op: string) => { ops?: OpCounts; fail?: string; delayMs?: number; output?: string[] } = () => ({}),
) {
  const calls: Call[] = [];
  let active = 0;
  let maxActive = 0;
  const created: string[] = [];
  const run = async (stack: string, op: string, opts?: OperationOptions) => {
    calls.push({ stack, op, opts });
    const b = behave(stack, op);
    active++;
    maxActive = Math.max(maxActive, active);
    try {
      await sleep(b.delayMs ?? 5);
      for (const chunk of b.output ?? []) opts?.onOutput?.(chunk);
      if (b.fail) throw new Error(b.fail);
      return b.ops ?? {};
    } finally {
      active--;
    }
  };
  const createStack: CreateStack = async (stack, workDir) => {
    assert.equal(workDir, "/project");
    const b = behave(stack, "create");
    if (b.fail) throw new Error(b.fail);
    created.push(stack);
    const s: StackLike = {
      async setAllConfig(config) {
        calls.push({ stack, op: "setAllConfig", config });
        const f = behave(stack, "setAllConfig");
        if (f.fail) throw new Error(f.fail);
      },
      preview: async (o) => ({ changeSummary: await run(stack, "preview", o) }),
      up: async (o) => ({ summary: { resourceChanges: await run(stack, "up", o) } }),
      destroy: async (o) => ({ summary: { resourceChanges: await run(stack, "destroy", o) } }),
      refresh: async (o) => ({ summary: { resourceChanges: await run(stack, "refresh", o) } }),
    };
    return s;
  };
  return { calls, created, createStack, maxActive: () => maxActive };
}

const configs = (n: number): Record<string, ConfigMap> =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`g${String(i).padStart(2, "0")}`, { "backup-portal:tenants": { value: `{"t${i}":{}}` } }]),
  );

describe("fleet: runFleet", () => {
  it("runs every group's stack with its own config, at most `parallel` at once", async () => {
    const ws = fakeWorkspace(() => ({ delayMs: 20, ops: { same: 3 } }));
    const result = await runFleet({
      workDir: "/project",
      groups: configs(10),
      command: "preview",
      stackPrefix: "acme/prod",
      parallel: 3,
      createStack: ws.createStack,
    });
    assert.equal(ws.maxActive(), 3);
    assert.equal(result.ok, true);
    assert.deepEqual(
      result.results.map((r) => r.stack),
      Array.from({ length: 10 }, (_, i) => `acme/prod-g${String(i).padStart(2, "0")}`),
    );
    const set = ws.calls.filter((c) => c.op === "setAllConfig");
    assert.equal(set.length, 10);
    assert.deepEqual(set.find((c) => c.stack === "acme/prod-g07")!.config, { "backup-portal:tenants": { value: '{"t7":{}}' } });
    for (const s of ws.created) {
      const ops = ws.calls.filter((c) => c.stack === s).map((c) => c.op);
      assert.deepEqual(ops, ["setAllConfig", "preview"], "config is set before the operation");
    }
    assert.deepEqual(result.totals, { created: 0, updated: 0, deleted: 0, replaced: 0, unchanged: 30 });
  });

  it("runs one group at a time with parallel 1, and all at once with a large parallel", async () => {
    const one = fakeWorkspace();
    await runFleet({ workDir: "/project", groups: configs(5), command: "up", stackPrefix: "p", parallel: 1, createStack: one.createStack });
    assert.equal(one.maxActive(), 1);
    const all = fakeWorkspace(() => ({ delayMs: 20 }));
    await runFleet({
      workDir: "/project",
      groups: configs(5),
      command: "up",
      stackPrefix: "p",
      parallel: 50,
      createStack: all.createStack,
    });
    assert.equal(all.maxActive(), 5);
  });

  it("a failing group is reported and the others go on", async () => {
    const ws = fakeWorkspace((stack, op) => {
      if (stack === "prod-g01" && op === "up") {
        return {
          fail: "code: 255\n stdout: Updating (prod-g01)\n    error: BusinessUnit prod-g01/acme: 409 conflict\n stderr: error: update failed\n",
        };
      }
      if (stack === "prod-g03" && op === "create") return { fail: "error: [403] Forbidden: no access to stack" };
      if (stack === "prod-g04" && op === "setAllConfig") return { fail: "error: could not set config" };
      return { ops: { create: 1, same: 2 } };
    });
    const seen: string[] = [];
    const result = await runFleet({
      workDir: "/project",
      groups: configs(6),
      command: "up",
      stackPrefix: "prod",
      parallel: 2,
      createStack: ws.createStack,
      onResult: (r) => {
        seen.push(r.group);
        throw new Error("a broken reporter does not stop the fleet");
      },
    });
    assert.equal(result.ok, false);
    assert.deepEqual(result.failed, ["g01", "g03", "g04"]);
    assert.equal(seen.length, 6);
    const g01 = result.results[1];
    assert.equal(g01.error, "error: BusinessUnit prod-g01/acme: 409 conflict");
    assert.deepEqual(g01.changes, { created: 0, updated: 0, deleted: 0, replaced: 0, unchanged: 0 });
    assert.equal(result.results[3].error, "error: [403] Forbidden: no access to stack");
    assert.ok(["g00", "g02", "g05"].every((g) => result.results.find((r) => r.group === g)!.ok));
    assert.equal(ws.calls.filter((c) => c.op === "up").length, 4, "every group that could start ran its update");
    assert.deepEqual(result.totals, { created: 3, updated: 0, deleted: 0, replaced: 0, unchanged: 6 });
    const report = formatFleetReport(result);
    assert.match(report, /^prod-g00\s+ok\s+\+1 ~0 -0 \+-0 =2/m);
    assert.match(report, /^prod-g01\s+FAILED\s+error: BusinessUnit prod-g01\/acme: 409 conflict$/m);
    assert.match(report, /up: 3 of 6 stacks ok; changes made: \+3 ~0 -0 \+-0 =6; failed: g01, g03, g04$/);
  });

  it("summarizes each group's resourceChanges (and a preview's changeSummary)", async () => {
    const ws = fakeWorkspace((stack) => ({
      ops: stack.endsWith("g00")
        ? { create: 2, update: 1, delete: 1, replace: 1, same: 10 }
        : { "create-replacement": 2, "delete-replaced": 2, same: 4 },
    }));
    for (const command of ["preview", "up", "destroy", "refresh"] as const) {
      const result = await runFleet({ workDir: "/project", groups: configs(2), command, stackPrefix: "s", createStack: ws.createStack });
      assert.deepEqual(
        result.results.map((r) => r.changes),
        [
          { created: 2, updated: 1, deleted: 1, replaced: 1, unchanged: 10 },
          { created: 0, updated: 0, deleted: 0, replaced: 2, unchanged: 4 },
        ],
        command,
      );
      assert.deepEqual(result.results[0].raw, { create: 2, update: 1, delete: 1, replace: 1, same: 10 });
      assert.equal(result.command, command);
    }
    assert.deepEqual(changeCounts(undefined), { created: 0, updated: 0, deleted: 0, replaced: 0, unchanged: 0 });
  });

  it("passes refresh and diff to preview and up only, and hands over engine output line by line per group", async () => {
    const ws = fakeWorkspace(() => ({
      output: ["Previewing update\n  + backup-portal:Bus", "inessUnit acme create\n", "Resources: 1 to create"],
    }));
    const lines: string[] = [];
    await runFleet({
      workDir: "/project",
      groups: configs(2),
      command: "preview",
      stackPrefix: "s",
      refresh: true,
      diff: true,
      createStack: ws.createStack,
      onOutput: (g, line) => lines.push(`${g}|${line}`),
    });
    const previews = ws.calls.filter((c) => c.op === "preview");
    assert.ok(previews.every((c) => c.opts?.refresh === true && c.opts?.diff === true && c.opts?.color === "never"));
    assert.deepEqual(
      lines.filter((l) => l.startsWith("g00|")),
      ["g00|Previewing update", "g00|  + backup-portal:BusinessUnit acme create", "g00|Resources: 1 to create"],
    );
    await runFleet({
      workDir: "/project",
      groups: configs(1),
      command: "destroy",
      stackPrefix: "s",
      refresh: true,
      createStack: ws.createStack,
    });
    assert.equal(ws.calls.filter((c) => c.op === "destroy")[0].opts?.refresh, undefined);
  });

  it("checks its options", async () => {
    const ws = fakeWorkspace();
    const base = { workDir: "/project", groups: configs(1), stackPrefix: "s", createStack: ws.createStack };
    await assert.rejects(runFleet({ ...base, command: "import" as never }), /command must be one of preview, up, destroy, refresh/);
    await assert.rejects(runFleet({ ...base, command: "up", parallel: 0 }), /parallel must be an integer/);
    await assert.rejects(runFleet({ ...base, command: "up", stackPrefix: "" }), /stackPrefix must name the stacks/);
    const empty = await runFleet({ ...base, groups: {}, command: "up" });
    assert.deepEqual([empty.ok, empty.results], [true, []]);
  });

  it("without a factory and without the Pulumi CLI, says so in one line before touching any stack", async () => {
    const saved = process.env.PATH;
    process.env.PATH = tmpDir(); // no `pulumi` here
    try {
      await assert.rejects(
        findPulumiCli(),
        (err: Error) => err instanceof PulumiCliMissingError && !err.message.includes("\n") && /Pulumi CLI/.test(err.message),
      );
      await assert.rejects(
        runFleet({ workDir: "/project", groups: configs(2), command: "preview", stackPrefix: "s" }),
        PulumiCliMissingError,
      );
    } finally {
      process.env.PATH = saved;
    }
  });

  it("keeps config values too large for one command-line argument out of `pulumi config set-all`", () => {
    const big = "x".repeat(MAX_CONFIG_ARG_BYTES);
    const { args, file } = splitConfigForArgs({
      "backup-portal:url": { value: "https://p" },
      "backup-portal:tenants": { value: big },
      "backup-portal:password": { value: "pw", secret: true },
    });
    assert.deepEqual(Object.keys(args), ["backup-portal:url", "backup-portal:password"]);
    assert.deepEqual(file, { "backup-portal:tenants": big });
  });

  it("keeps the engine's error lines of a CommandError", () => {
    const msg = "code: 255\n stdout: \n    error: a\n    error: a\n stderr: error: preview failed\nerror: b\n";
    assert.equal(errorSummary(new Error(msg)), "error: a | error: b");
    assert.equal(errorSummary(new Error("spawn failed\nmore")), "spawn failed");
    assert.equal(errorSummary("text"), "text");
  });

  it("finds the stacks of the prefix that are not in the grouping, whatever form `pulumi stack ls` gives their names in", () => {
    const listed = [
      "prod",
      "prod-g00",
      "acme/prod-g01",
      "acme/backup-portal/prod-g07",
      "other/prod-g09",
      "prod-eu",
      "dev-g05",
      "production-x",
    ];
    assert.deepEqual(staleGroups(listed, "acme/prod", ["g00", "g01"]), ["eu", "g07"]);
    assert.deepEqual(staleGroups(listed, "prod", ["g00", "g01", "g07", "g09", "eu"]), []);
    assert.deepEqual(staleGroups([], "acme/prod", ["g00"]), []);
  });
});
