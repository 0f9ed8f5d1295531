// What the program declares: names from keys, aliases for renamed keys,
// protection of business units, deletion comments, nodeName on consumers.
import assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { installMocks, Recorded, valueOf } from "../support/mocks";
import { localTenants } from "./support";
import { declareTenants } from "../../provider/tenants/declare";
import { TenantsConfig } from "../../provider/tenants/model";

const options = (protect: boolean) => ({
  rootBusinessUnitId: 1,
  protectBusinessUnits: protect,
  deletionComment: "removed by code review #42",
  secret: (k: string) => pulumi.secret(`secret-of-${k}`),
});

// First: fast, so that a mutation run stops at them before the slower tests below.
describe("stack program: what each declared resource is given", function () {
  this.timeout(30_000);
  let recorded: Recorded[];
  before(async () => {
    recorded = await installMocks();
  });

  /** The inputs the engine received for each resource of `d`, by resource name, once all are registered. */
  async function inputsOf(d: Record<string, Record<string, pulumi.CustomResource>>): Promise<Record<string, any>> {
    const all = Object.values(d).flatMap((group) => Object.values(group));
    await Promise.all(all.map((r) => valueOf(r.urn)));
    const out: Record<string, any> = {};
    for (const r of all) {
      const name = (await valueOf(r.urn)).split("::").pop()!;
      const type = (await valueOf(r.urn)).split("::")[2];
      // Without what the resource classes add themselves (the provider, the key that marks a create).
      const { __provider: _p, createKey: _k, ...inputs } = recorded.filter((x) => x.name === name && x.type === type).pop()!.inputs;
      out[`${type.split(":").pop()} ${name}`] = inputs;
    }
    return out;
  }
  const aliasesOf = async (r: pulumi.Resource) =>
    (await Promise.all((r as unknown as { __aliases: pulumi.Input<string>[] }).__aliases.map((a) => valueOf(pulumi.output(a)))))
      .map((urn) => urn.split("::").pop())
      .sort();

  it("business units get every field, their key as the default name, the parent's id; consumers and nodes theirs", async () => {
    const tenants = {
      acme: {
        registrationNumber: "556677-8899",
        timeZone: "UTC",
        note: "n",
        invoiceDay: 3,
        storageLimit: 10,
        transferLimit: 20,
        nodeLimit: 4,
        passwordExpirationDays: 90,
        supportResponsible: true,
        reportRemotely: false,
        useScheduleBindings: true,
        tags: ["t"],
        adoptId: 41,
        domainFilter: ["STANDARD"],
        clientOptionSetFilter: [2],
        billingStorageTypeId: 1,
        requiredApproversOfDeleteRequest: 2,
        finalDeleteRequestApprover: true,
        usersCanApproveOwnRequests: false,
        consumers: {
          web: {
            note: "cn",
            tags: ["c"],
            limitHighStorage: 5,
            allowNoActivity: true,
            adoptId: 9,
            node: { operatingSystem: "Linux", type: 1, domain: "STANDARD", clientOptionSet: "X", contact: "ops", cpuCount: 2, adopt: true },
          },
          db: {
            name: "Database",
            deleteAssociations: false,
            deletionComment: "own comment",
            node: { operatingSystem: 1, type: 1, domain: 1, cpuCount: 1, tsmName: "acme-db" },
          },
          plain: {},
        },
        businessUnits: { labs: { name: "Labs", registrationNumber: "2", timeZone: "UTC" } },
      },
    } as TenantsConfig;
    const d = declareTenants(tenants, { ...options(false), rootBusinessUnitId: 17 });
    const inputs = await inputsOf(d as unknown as Record<string, Record<string, pulumi.CustomResource>>);
    const { acme: cfg } = tenants;
    const { consumers: _c, businessUnits: _b, ...buFields } = cfg;
    assert.deepEqual(inputs["BusinessUnit acme"], { ...buFields, parentId: 17, name: "acme" });
    assert.deepEqual(inputs["BusinessUnit acme/labs"], { parentId: "acme-id", name: "Labs", registrationNumber: "2", timeZone: "UTC" });
    assert.deepEqual(inputs["Consumer acme/web"], {
      businessUnitId: "acme-id",
      name: "web",
      note: "cn",
      tags: ["c"],
      limitHighStorage: 5,
      allowNoActivity: true,
      nodeName: "*",
      deleteAssociations: true,
      deletionComment: "removed by code review #42",
      adoptId: 9,
    });
    assert.deepEqual(inputs["Consumer acme/db"], {
      businessUnitId: "acme-id",
      name: "Database",
      nodeName: "ACME-DB",
      deleteAssociations: false,
      deletionComment: "own comment",
    });
    assert.deepEqual(inputs["Consumer acme/plain"], {
      businessUnitId: "acme-id",
      name: "plain",
      deleteAssociations: true,
      deletionComment: "removed by code review #42",
    });
    assert.deepEqual(inputs["Node acme/web"], {
      businessUnitId: "acme-id",
      consumerId: "acme/web-id",
      operatingSystem: "Linux",
      type: 1,
      domain: "STANDARD",
      clientOptionSet: "X",
      contact: "ops",
      cpuCount: 2,
      adoptId: "acme/web-id",
    });
    assert.deepEqual(inputs["Node acme/db"], {
      businessUnitId: "acme-id",
      consumerId: "acme/db-id",
      operatingSystem: 1,
      type: 1,
      domain: 1,
      cpuCount: 1,
      tsmName: "acme-db",
    });
    assert.equal(inputs["Node acme/plain"], undefined, "no node where none is declared");
  });

  it("earlier names: an entry's aliases under every earlier name of its parent, and proxies under every combination", async () => {
    const node = { operatingSystem: "Linux", type: 1, domain: 1, cpuCount: 1 };
    const tenants = {
      acme2: {
        registrationNumber: "1",
        timeZone: "UTC",
        aliases: ["acme"],
        consumers: { web2: { aliases: ["web"], node }, db: { node } },
        proxies: [{ agent: "web2", target: "db" }],
        businessUnits: {
          labs2: { registrationNumber: "2", timeZone: "UTC", aliases: ["labs"] },
          lab3: { registrationNumber: "3", timeZone: "UTC" },
        },
      },
      globex: { registrationNumber: "4", timeZone: "UTC" },
    } as TenantsConfig;
    const d = declareTenants(tenants, options(false));
    assert.deepEqual(await aliasesOf(d.businessUnits.acme2), ["acme"]);
    assert.deepEqual(await aliasesOf(d.businessUnits.globex), [], "no earlier name, no alias");
    assert.deepEqual(await aliasesOf(d.businessUnits["acme2/labs2"]), ["acme/labs", "acme/labs2", "acme2/labs"]);
    assert.deepEqual(await aliasesOf(d.businessUnits["acme2/lab3"]), ["acme/lab3"]);
    assert.deepEqual(await aliasesOf(d.consumers["acme2/web2"]), ["acme/web", "acme/web2", "acme2/web"]);
    assert.deepEqual(await aliasesOf(d.nodes["acme2/web2"]), ["acme/web", "acme/web2", "acme2/web"]);
    assert.deepEqual(await aliasesOf(d.consumers["acme2/db"]), ["acme/db"]);
    assert.deepEqual(await aliasesOf(d.proxies["acme2/web2>db"]), ["acme/web2>db", "acme/web>db", "acme2/web>db"]);
  });
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
