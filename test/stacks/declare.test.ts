// What the program declares: names from keys, aliases for renamed keys,
// protection of business units, deletion comments, nodeName on consumers.
import assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { installMocks, valueOf } from "../support/mocks";
import { localTenants } from "./support";
import { declareTenants } from "../../stacks/tenants/declare";

const options = (protect: boolean) => ({
  rootBusinessUnitId: 1,
  protectBusinessUnits: protect,
  deletionComment: "removed by code review #42",
  secret: (k: string) => pulumi.secret(`secret-of-${k}`),
});

describe("stack program: declared resources", function () {
  this.timeout(30_000);
  before(() => installMocks());

  it("names every resource by its key path and marks nodes on their consumers", async () => {
    const d = declareTenants(localTenants(), options(false));
    assert.deepEqual(Object.keys(d.businessUnits).sort(), ["acme", "acme/acme-labs", "globex"]);
    assert.deepEqual(Object.keys(d.consumers).sort(), [
      "acme/acme-labs/ws01",
      "acme/backup-proxy",
      "acme/db01",
      "acme/web01",
      "globex/files",
    ]);
    assert.deepEqual(Object.keys(d.nodes).sort(), Object.keys(d.consumers).sort());
    assert.deepEqual(Object.keys(d.proxies), ["acme/backup-proxy>web01"]);
    const urn = await valueOf(d.nodes["acme/web01"].urn);
    assert.match(urn, /::pulumi-nodejs:dynamic\/backup-portal:Node::acme\/web01$/);
  });

  it("protects business units when the stack asks, and not otherwise", () => {
    const prod = declareTenants(localTenants(), options(true));
    for (const bu of Object.values(prod.businessUnits)) assert.equal((bu as unknown as { __protect: boolean }).__protect, true);
    const t = localTenants();
    t.globex.protect = false;
    const mixed = declareTenants(t, options(true));
    assert.equal((mixed.businessUnits.globex as unknown as { __protect: boolean }).__protect, false, "an entry can opt out");
    const dev = declareTenants(localTenants(), options(false));
    for (const bu of Object.values(dev.businessUnits)) assert.equal((bu as unknown as { __protect: boolean }).__protect, false);
  });

  it("carries renamed keys as aliases, down to the children", async () => {
    const t = localTenants();
    t["acme-ab"] = { ...t.acme, aliases: ["acme"] };
    delete (t as Record<string, unknown>).acme;
    const d = declareTenants(t, options(false));
    const aliasesOf = async (r: pulumi.Resource) =>
      Promise.all((r as unknown as { __aliases: pulumi.Input<string>[] }).__aliases.map((a) => valueOf(pulumi.output(a))));
    const buAliases = await aliasesOf(d.businessUnits["acme-ab"]);
    assert.ok(
      buAliases.some((a) => a.endsWith("BusinessUnit::acme")),
      buAliases.join(),
    );
    const nodeAliases = await aliasesOf(d.nodes["acme-ab/web01"]);
    assert.ok(
      nodeAliases.some((a) => a.endsWith("Node::acme/web01")),
      nodeAliases.join(),
    );
    const childAliases = await aliasesOf(d.businessUnits["acme-ab/acme-labs"]);
    assert.ok(
      childAliases.some((a) => a.endsWith("BusinessUnit::acme/acme-labs")),
      childAliases.join(),
    );
    // A proxy relation keeps its name across the rename of its business unit and of its agent.
    const [pname] = Object.keys(d.proxies);
    const [, agentKey, targetKey] = /^acme-ab\/(.+)>(.+)$/.exec(pname)!;
    const proxyAliases = await aliasesOf(d.proxies[pname]);
    assert.ok(
      proxyAliases.some((a) => a.endsWith(`NodeProxy::acme/${agentKey}>${targetKey}`)),
      proxyAliases.join(),
    );

    const t2 = localTenants();
    const c = t2.acme.consumers!;
    c[`${agentKey}-renamed`] = { ...c[agentKey], aliases: [agentKey] };
    delete c[agentKey];
    t2.acme.proxies = t2.acme.proxies!.map((p) => (p.agent === agentKey ? { ...p, agent: `${agentKey}-renamed` } : p));
    const d2 = declareTenants(t2, options(false));
    const renamed = await aliasesOf(d2.proxies[`acme/${agentKey}-renamed>${targetKey}`]);
    assert.ok(
      renamed.some((a) => a.endsWith(`NodeProxy::acme/${agentKey}>${targetKey}`)),
      renamed.join(),
    );
  });

  it("gives consumers the deletion comment and the node's name, and nodes their secret password", async () => {
    const t = localTenants();
    t.acme.consumers!.web01.node!.passwordSecret = "web01Password";
    const d = declareTenants(t, options(false));
    const web = d.consumers["acme/web01"] as unknown as Record<string, pulumi.Output<unknown>>;
    assert.equal(await valueOf(web.deletionComment), "removed by code review #42");
    assert.equal(await valueOf(web.nodeName), "ACME-WEB01");
    const pw = d.nodes["acme/web01"].tsmPassword;
    assert.equal(await (pw as unknown as { isSecret: Promise<boolean> }).isSecret, true);
  });
});
