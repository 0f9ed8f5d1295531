// The portal tree as `backup-portal:tenants`: the shape the stack program reads, its field names and rules from
// the same tables (provider/rules/fields.ts, provider/tenants/fields.ts), adoptId on every business unit and
// consumer, `adopt: true` on every node and proxy relation, reference data by name. What stack config cannot
// hold, or what its rules refuse, becomes a comment at its place and a review note: never a value the first up
// would change, and never dropped without a word.
import { matchReference, Named, ReferenceKind } from "../dynamic/references";
import { BUSINESS_UNIT_FIELDS, CONSUMER_FIELDS, FieldRule, FieldTable, NODE_FIELDS, fieldProblem, REFERENCE_WHAT } from "../rules/fields";
import { proxyPeers } from "../portal/nodes";
import { unwritableProblem } from "../rules/yaml-scalars";
import { byText, keysFor } from "./keys";
import { OutMap, OutValue } from "./out";
import { yamlText } from "./render";
import { allBusinessUnits, BusinessUnitRead, ConsumerRead, PortalTree, ReferenceLists } from "./read";

export interface Review {
  /** The key path in the stack config, e.g. tenants.acme.invoiceDay. */
  path: string;
  message: string;
}

export interface Exported {
  tenants: OutMap;
  reviews: Review[];
  /** What the file declares; `nodesLeftOut`: nodes written only as a comment (NODE_LEFT_OUT), not declared. */
  counts: { businessUnits: number; consumers: number; nodes: number; nodesLeftOut: number };
}

/** The comment on every exported node. */
export const NODE_PASSWORD_COMMENT = "password: cannot be read back from the portal; passwordSecret: <secret config key> sets one";

/** The comment in place of a node left out for review (merge tells it from a node the portal no longer has). */
export const NODE_LEFT_OUT =
  "node: left out until the values marked review below are fixed (the stack refuses it as it is); the portal has:";

/** Fields of portal objects that are no setting (identity, links, state), so no comment is owed for them. */
const READ_ONLY: Record<"businessUnit" | "consumer" | "node", Set<string>> = {
  businessUnit: new Set([
    "href",
    "$type",
    "id",
    "createdDate",
    "parentBusinessUnit",
    "businessUnits",
    "ancestors",
    "consumers",
    "billingStorageType",
    "actions",
  ]),
  consumer: new Set([
    "href",
    "$type",
    "id",
    "createdDate",
    "businessUnit",
    "dataSourceType",
    "dataSourceIsPotentialParent",
    "dataSourceState",
    "billingStartDate",
    "lastCommentTime",
    "lastCommentTypeId",
    "comments",
    "jobs",
  ]),
  node: new Set([
    "href",
    "$type",
    "id",
    "createdDate",
    "server",
    "tsmName",
    "tsmNodeId",
    "tsmPassword",
    "name",
    "activatedDate",
    "registeredTime",
    "lastAccessTime",
    "locked",
    "decommissioned",
    "proxyAgents",
    "proxyTargets",
    "dataSourceState",
    "dataSourceType",
    "filespaces",
    "schedules",
    "syncState",
    "osLevel",
    "platform",
    "macAddress",
    "tcpAddress",
    "tcpName",
    "tsmClientVersion",
    "sessionSecurity",
  ]),
};

/** Portal collections of object kinds this product does not manage. */
const UNMANAGED_KINDS: Record<string, string> = { users: "users", addresses: "addresses" };

const isEmpty = (v: unknown) =>
  v === undefined ||
  v === null ||
  v === "" ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === "object" && !Array.isArray(v) && Object.keys(v as object).length === 0);

const countOf = (v: unknown): number | undefined => {
  if (Array.isArray(v)) return v.length;
  if (v && typeof v === "object") {
    const c = v as { total?: number; items?: unknown[] };
    return c.total ?? c.items?.length;
  }
  return undefined;
};

/** A value as a comment shows it: JSON, so no line break or control character reaches the file unescaped. */
const shown = (v: unknown) => JSON.stringify(v);

class Mapper {
  readonly reviews: Review[] = [];
  readonly counts = { businessUnits: 0, consumers: 0, nodes: 0, nodesLeftOut: 0 };
  /** Where each exported consumer went: business unit id and key. */
  private readonly consumerKeys = new Map<number, { bunitId: number; key: string; hasNode: boolean }>();

  constructor(private readonly refs: ReferenceLists) {}

  review(out: OutMap, path: string, lines: string[], message: string): void {
    out.comment(...lines, `review: ${message}`);
    this.reviews.push({ path, message });
  }

  /**
   * How to name reference `id`: the first of `candidates` (a time zone's windowsId, then any name) that gives back
   * this id as the stack resolves names; else the id itself. Undefined when the portal's list lacks the id.
   */
  referenceName(kind: ReferenceKind, ref: Named, scope: number): { value: string | number; note?: string } | undefined {
    const items = this.refs.list(kind, scope);
    const item = items.find((i) => i.id === ref.id);
    if (!item) return undefined;
    const rule: FieldRule = { kind: "reference", ref: kind, doc: "" };
    for (const c of [item.windowsId, item.name]) {
      if (typeof c !== "string" || c.trim() === "" || fieldProblem(c, rule)) continue;
      if (matchReference(items, c)?.id === ref.id) return { value: c };
    }
    return {
      value: ref.id,
      note: `by id: the ${REFERENCE_WHAT[kind]} ${shown(item.windowsId ?? item.name ?? "")} has no name that names only it`,
    };
  }

  /** The settings of `obj` by `table` into `out`: written, or commented with the reason. */
  /** Returns whether a required field is missing or refused (the entry cannot be declared as it is). */
  fields(out: OutMap, obj: Record<string, any>, table: FieldTable, path: string, scopes: { parentId: number; bunitId: number }): boolean {
    let blocked = false;
    for (const [key, rule] of Object.entries(table)) {
      if (rule.local) continue;
      let v: unknown = key === "billingStorageTypeId" ? (obj.billingStorageTypeId ?? obj.billingStorageType) : obj[key];
      const before: string[] = [];
      if (rule.kind === "reference" || rule.kind === "references") {
        const scope = rule.scope === "parentId" ? scopes.parentId : scopes.bunitId;
        const refs: Named[] = rule.kind === "reference" ? (isEmpty(v) ? [] : [v as Named]) : isEmpty(v) ? [] : (v as Named[]);
        const names = refs.map((r) => ({ r, n: typeof r?.id === "number" ? this.referenceName(rule.ref, r, scope) : undefined }));
        const unknown = names.filter((x) => !x.n);
        if (unknown.length) {
          blocked ||= !!rule.required;
          const ids = unknown.map((x) => shown(x.r?.id ?? x.r));
          this.review(
            out,
            `${path}.${key}`,
            [`${key}: ${ids.join(", ")}`],
            `the portal's list of ${REFERENCE_WHAT[rule.ref]}s has no ${ids.join(", ")}; name one it has${
              rule.required ? " (the stack refuses this entry without it)" : " (left out: the portal keeps what it has)"
            }`,
          );
          continue;
        }
        before.push(...names.flatMap((x) => (x.n!.note ? [x.n!.note] : [])));
        v = rule.kind === "reference" ? names[0]?.n!.value : names.map((x) => x.n!.value);
      }
      if (isEmpty(v)) {
        if (rule.required) {
          blocked = true;
          this.review(out, `${path}.${key}`, [`${key}: (none on the portal)`], `the stack needs a ${key}: set it on the portal or here`);
        }
        continue;
      }
      const problem = fieldProblem(v, rule) ?? unwritableProblem(v);
      if (problem) {
        blocked ||= !!rule.required;
        this.review(
          out,
          `${path}.${key}`,
          [`${key}: ${shown(v)}`],
          `${key} ${problem}; ${
            rule.required
              ? "the stack refuses this entry until it holds a valid value (set it on the portal or here)"
              : "left out, so the first up leaves the portal's value as it is; set a valid one to manage it"
          }`,
        );
        continue;
      }
      out.set(key, v as OutValue, before);
    }
    return blocked;
  }

  /** Fields the tables lack and kinds this product does not manage: named (never their values) for review. */
  unmanaged(out: OutMap, obj: Record<string, unknown>, table: FieldTable, kind: keyof typeof READ_ONLY, path: string): void {
    for (const key of Object.keys(obj).sort(byText)) {
      if (key in table || READ_ONLY[kind].has(key) || isEmpty(obj[key])) continue;
      const what = UNMANAGED_KINDS[key];
      if (what) {
        const n = countOf(obj[key]);
        if (n === 0) continue;
        this.review(
          out,
          `${path}.${key}`,
          [],
          `${n ?? "some"} ${what} on the portal: stack config does not manage ${what}; they stay as they are`,
        );
      } else {
        this.review(
          out,
          `${path}.${key}`,
          [],
          `the portal field ${shown(key)} has no place in stack config; it stays as it is on the portal`,
        );
      }
    }
  }

  businessUnits(list: BusinessUnitRead[], path: string): OutMap {
    const out = new OutMap();
    const keys = keysFor(
      list.map((b) => ({ id: b.bu.id, name: b.bu.name })),
      "business-unit",
    );
    for (const b of [...list].sort((x, y) => byText(keys.get(x.bu.id)!, keys.get(y.bu.id)!))) {
      const key = keys.get(b.bu.id)!;
      out.set(key, this.businessUnit(b, `${path}.${key}`));
    }
    return out;
  }

  businessUnit(b: BusinessUnitRead, path: string): OutMap {
    this.counts.businessUnits++;
    const out = new OutMap().set("adoptId", b.bu.id);
    this.fields(out, b.bu as Record<string, any>, BUSINESS_UNIT_FIELDS, path, { parentId: b.parentId, bunitId: b.bu.id });
    this.unmanaged(out, b.bu as unknown as Record<string, unknown>, BUSINESS_UNIT_FIELDS, "businessUnit", path);
    // In the order of BUSINESS_UNIT_CHILDREN; consumers are mapped first, since proxies name their keys.
    const consumers = b.consumers.length ? this.consumers(b, `${path}.consumers`) : undefined;
    if (b.children.length) out.set("businessUnits", this.businessUnits(b.children, `${path}.businessUnits`));
    if (consumers) out.set("consumers", consumers);
    this.proxies(out, b, `${path}.proxies`);
    return out;
  }

  consumers(b: BusinessUnitRead, path: string): OutMap {
    const out = new OutMap();
    const keys = keysFor(
      b.consumers.map((c) => ({ id: c.consumer.id, name: c.consumer.name })),
      "consumer",
    );
    for (const c of [...b.consumers].sort((x, y) => byText(keys.get(x.consumer.id)!, keys.get(y.consumer.id)!))) {
      const key = keys.get(c.consumer.id)!;
      this.consumerKeys.set(c.consumer.id, { bunitId: b.bu.id, key, hasNode: !!c.node });
      out.set(key, this.consumer(c, b.bu.id, `${path}.${key}`));
    }
    return out;
  }

  consumer(c: ConsumerRead, bunitId: number, path: string): OutMap {
    this.counts.consumers++;
    const out = new OutMap().set("adoptId", c.consumer.id);
    this.fields(out, c.consumer as Record<string, any>, CONSUMER_FIELDS, path, { parentId: bunitId, bunitId });
    this.unmanaged(out, c.consumer as unknown as Record<string, unknown>, CONSUMER_FIELDS, "consumer", path);
    if (c.node) {
      const node = this.node(c, bunitId, `${path}.node`);
      if (node.blocked) {
        // Declared as it is, the node would stop the whole stack at validation: it stays out (the consumer is still
        // adopted), written as a comment, until the value is fixed.
        out.comment(NODE_LEFT_OUT, ...yamlText(new OutMap().set("node", node.out)).map((l) => `  ${l}`));
        this.consumerKeys.get(c.consumer.id)!.hasNode = false;
        this.counts.nodesLeftOut++;
      } else {
        out.set("node", node.out, [NODE_PASSWORD_COMMENT]);
        this.counts.nodes++;
      }
    }
    return out;
  }

  node(c: ConsumerRead, bunitId: number, path: string): { out: OutMap; blocked: boolean } {
    const node = c.node!;
    const out = new OutMap().set("adopt", true);
    let blocked = this.fields(out, node, NODE_FIELDS, path, { parentId: bunitId, bunitId });
    // The activated name is not read by `fields` (the rule is the stack's own), but is written all the same: it
    // gets the same checks, and a name the stack refuses or no file can hold leaves the node out for review.
    const nameProblem = node.tsmName ? (fieldProblem(node.tsmName, NODE_FIELDS.tsmName) ?? unwritableProblem(node.tsmName)) : undefined;
    if (nameProblem) {
      blocked = true;
      this.review(
        out,
        `${path}.tsmName`,
        [`tsmName: ${shown(node.tsmName)}`],
        `tsmName ${nameProblem}; the stack refuses this node as it is (the backup server never renames a node: a new consumer gets a valid name)`,
      );
    } else if (node.tsmName) out.set("tsmName", node.tsmName);
    else out.comment("not activated yet: add tsmName to activate it under that name");
    const state = [node.locked ? "locked" : "", node.decommissioned ? "decommissioned" : ""].filter(Boolean);
    if (state.length) out.comment(`the portal shows this node ${state.join(" and ")}`);
    this.unmanaged(out, node, NODE_FIELDS, "node", path);
    return { out, blocked };
  }

  /** The proxy relations of the business unit's nodes, from each target's agents; across business units: a review. */
  proxies(out: OutMap, b: BusinessUnitRead, path: string): void {
    const pairs: Array<{ agent: string; target: string }> = [];
    const foreign: string[] = [];
    /** Relations whose agent or target node is left out for review: they wait for it. */
    const left: string[] = [];
    for (const c of b.consumers) {
      if (!c.node) continue;
      const target = this.consumerKeys.get(c.consumer.id)!;
      for (const agent of proxyPeers(c.node.proxyAgents)) {
        const a = this.consumerKeys.get(agent.id);
        if (a && a.bunitId === b.bu.id && a.hasNode && target.hasNode) pairs.push({ agent: a.key, target: target.key });
        else if (a && a.bunitId === b.bu.id) left.push(`${a.key} → ${target.key}`);
        else foreign.push(`${target.key} has the proxy agent ${shown(agent.name ?? agent.tsmName ?? "")} (consumer ${agent.id})`);
      }
      for (const t of proxyPeers(c.node.proxyTargets)) {
        // A target in this export is reported from its own side; one outside it only here.
        if (!this.consumerKeys.has(t.id) && !this.inTree(t.id))
          foreign.push(`${target.key} is proxy agent of ${shown(t.name ?? t.tsmName ?? "")} (consumer ${t.id})`);
      }
    }
    pairs.sort((x, y) => byText(x.agent, y.agent) || byText(x.target, y.target));
    if (pairs.length) {
      out.set(
        "proxies",
        pairs.map((p) => new OutMap().set("agent", p.agent).set("target", p.target).set("adopt", true)),
      );
    }
    for (const l of left.sort(byText)) {
      this.review(out, path, [], `proxy relation ${l}: left out with its node (see the node's review); add it when the node is back`);
    }
    for (const f of foreign.sort(byText)) {
      this.review(
        out,
        path,
        [],
        `${f}, outside this business unit: stack config joins the nodes of one business unit only; it stays as it is`,
      );
    }
  }

  private treeIds?: Set<number>;
  tree?: PortalTree;
  private inTree(consumerId: number): boolean {
    this.treeIds ??= new Set([...allBusinessUnits(this.tree!.businessUnits)].flatMap((b) => b.consumers.map((c) => c.consumer.id)));
    return this.treeIds.has(consumerId);
  }
}

/** The tree as the tenants block, with its review notes and counts. */
export function toTenants(tree: PortalTree): Exported {
  const m = new Mapper(tree.references);
  m.tree = tree;
  const tenants = m.businessUnits(tree.businessUnits, "tenants");
  return { tenants, reviews: m.reviews, counts: m.counts };
}
