// Turns validated tenants into resources. Each resource's name is its key path
// in the config, never a position in a list, so reordering or adding entries
// replaces nothing; `aliases` carry earlier keys across a rename.
import * as pulumi from "@pulumi/pulumi";
import { BusinessUnit } from "../resources/business-unit";
import { Consumer } from "../resources/consumer";
import { Node } from "../resources/node";
import { NodeProxy } from "../resources/node-proxy";
import { BusinessUnitConfig, ConsumerConfig, TenantsConfig } from "./model";

export interface DeclareOptions {
  rootBusinessUnitId: number;
  /** Protect business units from deletion (a production stack). */
  protectBusinessUnits: boolean;
  /** Recorded by the portal when a consumer is deleted. */
  deletionComment: string;
  /** The node password held in a secret config key. */
  secret(key: string): pulumi.Output<string>;
  /** Resource options for every resource (tests pass a provider-less parent, for instance). */
  resourceOptions?: pulumi.CustomResourceOptions;
  /** The classes to declare with: the dynamic ones by default; the plugin's Tenants component passes its own types. */
  classes?: TenantClasses;
  /**
   * What each tenant's business unit depends on besides its options' own (the program's NameCheck): none of them,
   * and so nothing under one, is registered before these are, and none when one of them fails.
   */
  tenantsDependOn?: pulumi.Resource[];
}

export interface TenantClasses {
  BusinessUnit: typeof BusinessUnit;
  Consumer: typeof Consumer;
  Node: typeof Node;
  NodeProxy: typeof NodeProxy;
}

export interface Declared {
  businessUnits: Record<string, BusinessUnit>;
  consumers: Record<string, Consumer>;
  nodes: Record<string, Node>;
  proxies: Record<string, NodeProxy>;
}

/** Every earlier name of an entry: its own aliases and current key under each earlier name of its parent. */
function earlierNames(parentNames: string[], parentName: string | undefined, key: string, aliases: string[] = []): string[] {
  const own = [key, ...aliases];
  const parents = parentName === undefined ? [undefined] : [parentName, ...parentNames];
  const all = parents.flatMap((p) => own.map((k) => (p === undefined ? k : `${p}/${k}`)));
  const current = parentName === undefined ? key : `${parentName}/${key}`;
  return all.filter((n) => n !== current);
}

// Dependents take a parent's resource id (`bu.id`, `consumer.id`), not an output
// like `businessUnitId`: in a preview of an update the engine fakes outputs from
// inputs, so outputs turn unknown and would show every dependent as replaced.
const aliasOpts = (names: string[]) => (names.length ? { aliases: names.map((name) => ({ name })) } : {});

/** Marks the node a consumer carries: a change replaces the consumer, since the portal deletes both together. */
export function nodeNameOf(c: ConsumerConfig): string | undefined {
  if (!c.node) return undefined;
  return c.node.tsmName ? c.node.tsmName.toUpperCase() : "*";
}

export function declareTenants(tenants: TenantsConfig, opts: DeclareOptions): Declared {
  const out: Declared = { businessUnits: {}, consumers: {}, nodes: {}, proxies: {} };
  const base = opts.resourceOptions ?? {};
  const classes = opts.classes ?? { BusinessUnit, Consumer, Node, NodeProxy };
  // A tenant (no parent in the block) waits for tenantsDependOn; everything else waits for its tenant through its ids.
  const tenantDependencies = (parentName: string | undefined): pulumi.CustomResourceOptions => {
    if (parentName !== undefined || !opts.tenantsDependOn?.length) return {};
    // The options' own, kept (the SDK takes a list whose items are lists or outputs of them too).
    const own = base.dependsOn === undefined ? [] : Array.isArray(base.dependsOn) ? base.dependsOn : [base.dependsOn];
    return { dependsOn: [...own, ...opts.tenantsDependOn] as pulumi.Input<pulumi.Resource>[] };
  };

  function businessUnit(
    key: string,
    cfg: BusinessUnitConfig,
    parentId: pulumi.Input<number | string>,
    parentName: string | undefined,
    parentEarlier: string[],
  ): void {
    const name = parentName === undefined ? key : `${parentName}/${key}`;
    const earlier = earlierNames(parentEarlier, parentName, key, cfg.aliases);
    const bu = new classes.BusinessUnit(
      name,
      {
        parentId,
        name: cfg.name ?? key,
        registrationNumber: cfg.registrationNumber,
        timeZone: cfg.timeZone,
        note: cfg.note,
        invoiceDay: cfg.invoiceDay,
        storageLimit: cfg.storageLimit,
        transferLimit: cfg.transferLimit,
        nodeLimit: cfg.nodeLimit,
        passwordExpirationDays: cfg.passwordExpirationDays,
        supportResponsible: cfg.supportResponsible,
        reportRemotely: cfg.reportRemotely,
        useScheduleBindings: cfg.useScheduleBindings,
        tags: cfg.tags,
        adoptId: cfg.adoptId,
        domainFilter: cfg.domainFilter,
        clientOptionSetFilter: cfg.clientOptionSetFilter,
        billingStorageTypeId: cfg.billingStorageTypeId,
        requiredApproversOfDeleteRequest: cfg.requiredApproversOfDeleteRequest,
        finalDeleteRequestApprover: cfg.finalDeleteRequestApprover,
        usersCanApproveOwnRequests: cfg.usersCanApproveOwnRequests,
      },
      { ...base, protect: cfg.protect ?? opts.protectBusinessUnits, ...aliasOpts(earlier), ...tenantDependencies(parentName) },
    );
    out.businessUnits[name] = bu;

    const consumersByKey: Record<string, { consumer: Consumer; node?: Node }> = {};
    for (const [ckey, c] of Object.entries(cfg.consumers ?? {})) {
      const cname = `${name}/${ckey}`;
      const cEarlier = earlierNames([name, ...earlier].slice(1), name, ckey, c.aliases);
      const consumer = new classes.Consumer(
        cname,
        {
          businessUnitId: bu.id,
          name: c.name ?? ckey,
          note: c.note,
          tags: c.tags,
          limitHighStorage: c.limitHighStorage,
          allowNoActivity: c.allowNoActivity,
          nodeName: nodeNameOf(c),
          deleteAssociations: c.deleteAssociations ?? true,
          deletionComment: c.deletionComment ?? opts.deletionComment,
          adoptId: c.adoptId,
        },
        { ...base, ...aliasOpts(cEarlier) },
      );
      out.consumers[cname] = consumer;
      let node: Node | undefined;
      if (c.node) {
        const n = c.node;
        node = new classes.Node(
          cname,
          {
            businessUnitId: bu.id,
            consumerId: consumer.id,
            operatingSystem: n.operatingSystem,
            type: n.type,
            domain: n.domain,
            clientOptionSet: n.clientOptionSet,
            contact: n.contact,
            cpuCount: n.cpuCount,
            tsmName: n.tsmName,
            tsmPassword: n.passwordSecret ? opts.secret(n.passwordSecret) : undefined,
            adoptId: n.adopt ? consumer.id : undefined,
          },
          { ...base, ...aliasOpts(cEarlier) },
        );
        out.nodes[cname] = node;
      }
      consumersByKey[ckey] = { consumer, node };
    }

    for (const p of cfg.proxies ?? []) {
      const agent = consumersByKey[p.agent];
      const target = consumersByKey[p.target];
      const pname = `${name}/${p.agent}>${p.target}`;
      // Earlier names too, from every earlier name of the business unit, the agent and the target: without them a
      // rename would create the "new" relation (a no-op on the portal, the pair exists) and then delete the old
      // name, which removes the pair.
      const keysOf = (k: string) => [k, ...(cfg.consumers?.[k]?.aliases ?? [])];
      const pEarlier = [name, ...earlier]
        .flatMap((b) => keysOf(p.agent).flatMap((a) => keysOf(p.target).map((t) => `${b}/${a}>${t}`)))
        .filter((n) => n !== pname);
      out.proxies[pname] = new classes.NodeProxy(
        pname,
        {
          businessUnitId: bu.id,
          agentConsumerId: agent.consumer.id,
          targetConsumerId: target.consumer.id,
          adopt: p.adopt,
        },
        { ...base, dependsOn: [agent.node!, target.node!], ...aliasOpts(pEarlier) },
      );
    }

    for (const [childKey, child] of Object.entries(cfg.businessUnits ?? {})) {
      businessUnit(childKey, child, bu.id, name, earlier);
    }
  }

  for (const [key, cfg] of Object.entries(tenants)) businessUnit(key, cfg, opts.rootBusinessUnitId, undefined, []);
  return out;
}
