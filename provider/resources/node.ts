// Node: the backup node of a consumer, with its password and activation.
import type * as pulumi from "@pulumi/pulumi";
import { secret } from "@pulumi/pulumi/output";
import { portal } from "../dynamic/connection";
import { PartialCreateError } from "../dynamic/partial";
import { noteRemovedWithNode } from "../dynamic/removed";
import { hostProvider, Lifecycle, serializedProvider } from "../dynamic/provider";
import { DynamicResource } from "../dynamic/resource";
import { checkReferences, explainMissing, ReferenceKind, referencesFor } from "../dynamic/references";
import { moduleSpecifier } from "../dynamic/specifier";
import { Failures, checkId, isUnknown, managedKeys, readBack, sameValue, defined, sentValue, withPortalValues } from "../dynamic/values";
import { checkFields, failed, referenceInputs } from "../rules/check";
import { NODE_FIELDS } from "../rules/fields";
import { NODE, outputPlaceholders, replacingChanges, resourceReplaces, secretKeys } from "../rules/resources";
import { isNotFound, PortalError } from "../portal/errors";
import { Node as PortalNode, NodeFields } from "../portal/types";

export { configure as configurePortal } from "../dynamic/connection";
import { currentPortal, withLoginHint } from "../dynamic/connection";
import { withPortalGuard } from "../dynamic/portal-guard";

export interface NodeArgs {
  businessUnitId: pulumi.Input<number | string>;
  /** The consumer that carries the node; the node's resource id is this consumer's id. */
  consumerId: pulumi.Input<number | string>;
  /** Name or id, e.g. "Linux". */
  operatingSystem: pulumi.Input<string | number>;
  /** Node type: name or id, e.g. "File server". */
  type: pulumi.Input<string | number>;
  /** Policy domain of the default backup server: name or id, e.g. "STANDARD". */
  domain: pulumi.Input<string | number>;
  /** Client option set of the default backup server: name or id, e.g. "DEDUP_AND_COMPRESS". */
  clientOptionSet?: pulumi.Input<string | number>;
  contact?: pulumi.Input<string>;
  cpuCount: pulumi.Input<number>;
  /** Activates the node under this name (1-64 of A-Z 0-9 _ . - + &). Once activated it never changes. */
  tsmName?: pulumi.Input<string>;
  /**
   * The node's password, set through the password endpoint. Always stored as a secret. Left out, the portal
   * chooses one at activation; it is then the secret output `generatedPassword`.
   */
  tsmPassword?: pulumi.Input<string>;
  /** Adopt the existing node of `consumerId` instead of creating one (must equal consumerId). */
  adoptId?: pulumi.Input<number | string>;
}

/** Named references: input key → reference kind, and the output holding the resolved id. */
const REFERENCES: Array<{ key: string; kind: ReferenceKind; idKey: string; required: boolean }> = [
  { key: "operatingSystem", kind: "operatingSystem", idKey: "operatingSystemId", required: true },
  { key: "type", kind: "type", idKey: "typeId", required: true },
  { key: "domain", kind: "domain", idKey: "domainId", required: true },
  { key: "clientOptionSet", kind: "clientOptionSet", idKey: "clientOptionSetId", required: false },
];
/**
 * Starts the reads a new node in business unit `bunitId` needs: its Check resolves the names, its create sends
 * the default server. The engine calls Check for one resource at a time (its step generator is serial), so a
 * Check that waits on the portal holds up the whole deployment; the Consumer that will carry the node calls
 * this from its own Check, and the reads overlap the consumer's create.
 */
export function prefetchNodeReferences(bunitId: number): void {
  referencesFor(portal()).warm(
    REFERENCES.map((r) => r.kind),
    bunitId,
  );
}

/** Inputs changed in place with PUT. */
const SETTABLE = ["operatingSystem", "type", "domain", "clientOptionSet", "contact", "cpuCount"] as const;
/** Inputs whose change replaces the node (rules/resources.ts). */
const REPLACING = [...resourceReplaces(NODE).keys()];

type Inputs = Record<string, any>;

async function check(olds: Inputs, news: Inputs): Promise<pulumi.dynamic.CheckResult> {
  const inputs: Inputs = { ...news };
  const f = new Failures();
  checkId(f, inputs, "businessUnitId");
  checkId(f, inputs, "consumerId");
  checkId(f, inputs, "adoptId", false);
  checkFields(f, inputs, NODE_FIELDS);
  const pw = inputs.tsmPassword;
  if (pw !== undefined && pw !== null && !isUnknown(pw) && (typeof pw !== "string" || pw.length < 1 || pw.length > 64)) {
    // Never echo the value: it is a secret.
    f.add("tsmPassword", "tsmPassword must be a string of 1 to 64 characters");
  }
  // The backup server never renames a node, and deleting a node deletes its consumer on the portal: a new
  // name needs a new consumer (the Consumer's nodeName changes, so it is replaced and so is this node).
  // On the same consumer there is no way to do it: say so before anything is deleted. Said here, not in
  // Diff: the engine also calls Diff on a refresh (portal state against the declared inputs), where a
  // difference is drift to show, not an error.
  const name = inputs.tsmName;
  if (
    typeof name === "string" &&
    !isUnknown(name) &&
    needsNewName(olds.tsmName, name) &&
    !isUnknown(inputs.consumerId) &&
    sameValue(olds.consumerId, inputs.consumerId)
  ) {
    const activated = await activatedName(olds);
    if (activated !== undefined && needsNewName(activated, name)) f.add("tsmName", renameRefused(activated, name));
  }
  if (inputs.adoptId !== undefined && !isUnknown(inputs.adoptId) && !isUnknown(inputs.consumerId) && inputs.adoptId !== inputs.consumerId) {
    f.add("adoptId", `adoptId must equal consumerId (${inputs.consumerId}): a node is adopted through its consumer`);
  }
  await checkReferences(f, () => referencesFor(portal()), olds, inputs, referenceInputs(f, NODE_FIELDS));
  await checkPair(f, olds, inputs);
  return { inputs, failures: f.list };
}

/**
 * The type must be one the operating system supports (rules/node-pairs.ts). Asked when either is new or changed,
 * as the names are: a pair already on the portal is not sent again. Unknown values (preview) pass.
 */
async function checkPair(f: Failures, olds: Inputs, inputs: Inputs): Promise<void> {
  const { operatingSystem: os, type } = inputs;
  if (failed(f, "operatingSystem") || failed(f, "type") || os === undefined || type === undefined) return;
  if (isUnknown(os) || isUnknown(type)) return;
  if (sameValue(olds.operatingSystem, os) && sameValue(olds.type, type)) return;
  const problem = await referencesFor(portal()).nodePairProblem(os, type);
  if (problem) f.add("type", `type: ${problem}`);
}

/**
 * The name the node of `olds` is activated as on the portal, or undefined when it is not activated: the old tsmName
 * may never have been, when its activation was refused (a name another node holds, TsmNameTaken) after the node was
 * made; then another name is the way out, not a refusal. Read only when a name changes on the same consumer; a read
 * that fails keeps the old name, as if activated (the update refuses a rename again in any case).
 */
async function activatedName(olds: Inputs): Promise<string | undefined> {
  try {
    const node = await portal().nodes.get(Number(olds.businessUnitId), Number(olds.consumerId));
    return node.tsmName ? node.tsmName : undefined;
  } catch {
    return olds.tsmName as string;
  }
}

const sameName = (a: unknown, b: unknown) =>
  sameValue(typeof a === "string" ? a.toUpperCase() : a, typeof b === "string" ? b.toUpperCase() : b);

/** Whether a node activated as `activated` must be replaced to carry the name `wanted`. */
function needsNewName(activated: unknown, wanted: string): boolean {
  return typeof activated === "string" && activated !== "" && !sameName(activated, wanted);
}

async function diff(_id: string, olds: Inputs, news: Inputs): Promise<pulumi.dynamic.DiffResult> {
  const changed = [...REPLACING, ...SETTABLE].filter((k) => !sameValue(olds[k], news[k]));
  // A name not yet activated (a create that stopped half way, an adopted node) is a change to finish.
  const toActivate = news.tsmName !== undefined && !olds.activatedName;
  const newName = (!sameName(olds.tsmName, news.tsmName) && news.tsmName !== undefined) || toActivate;
  const newPassword = !sameValue(olds.tsmPassword, news.tsmPassword);
  const replaces = replacingChanges(NODE, changed, olds);
  // A name other than the activated one on the same consumer is refused by Check (and by update, should
  // it get there); here it is only a change, which is what a refresh must show.
  return { changes: changed.length > 0 || newName || newPassword, replaces, deleteBeforeReplace: false };
}

function renameRefused(activated: string, wanted: unknown): string {
  return (
    `tsmName: the node is activated as ${activated} and the backup server never renames a node, so ${JSON.stringify(wanted)} ` +
    `needs a new node, on a new consumer: give the Consumer that carries it the new name as nodeName (it is then replaced ` +
    `with its node), or set tsmName back to "${activated}"`
  );
}

/**
 * The PUT/POST body for `keys`, names resolved to ids (all lookups at once: they are independent reads); a name
 * that did not change since `known` (the stored outputs) keeps the id they hold, without a read.
 */
async function resolveFields(inputs: Inputs, keys: readonly string[], known: Inputs = {}): Promise<{ fields: NodeFields; ids: Inputs }> {
  const refs = referencesFor(portal());
  const fields: Record<string, unknown> = {};
  const ids: Inputs = {};
  await Promise.all(
    keys.map(async (k) => {
      const r = REFERENCES.find((x) => x.key === k);
      if (!r) {
        fields[k] = sentValue(inputs, k);
      } else if (inputs[k] === undefined || inputs[k] === null) {
        fields[k] = null;
        ids[r.idKey] = undefined;
      } else if (sameValue(known[k], inputs[k]) && known[r.idKey] !== undefined && sameValue(known.businessUnitId, inputs.businessUnitId)) {
        fields[k] = { id: known[r.idKey] };
        ids[r.idKey] = known[r.idKey];
      } else {
        const found = await refs.resolve(r.kind, inputs[k], inputs.businessUnitId);
        fields[k] = { id: found.id };
        ids[r.idKey] = found.id;
      }
    }),
  );
  return { fields: fields as NodeFields, ids };
}

function outputsOf(inputs: Inputs, node: PortalNode, extra: Inputs): Inputs {
  // A password the portal chose belongs to a node whose password is not declared: one declared replaces it.
  if (inputs.tsmPassword !== undefined) extra = { ...extra, generatedPassword: undefined };
  const outs: Inputs = { ...inputs, ...extra, nodeId: node.id, createdDate: node.createdDate, href: node.href };
  for (const r of REFERENCES) delete outs[r.idKey];
  if (node.server?.id !== undefined) outs.serverId = node.server.id;
  for (const r of REFERENCES) {
    const ref = (node as Record<string, any>)[r.key];
    if (ref?.id !== undefined) outs[r.idKey] = ref.id;
  }
  if (node.tsmName) outs.activatedName = node.tsmName;
  return defined(outs);
}

/**
 * Sets the password and activates, as the inputs ask and the node needs. Activated without a declared password,
 * the portal chooses one and hands it back on the node: kept as `generatedPassword` (a secret output).
 */
async function finish(
  inputs: Inputs,
  node: PortalNode,
  olds: Inputs | undefined,
): Promise<{ node: PortalNode; generatedPassword?: string }> {
  const client = portal();
  const { businessUnitId: b, consumerId: c } = inputs;
  if (inputs.tsmPassword !== undefined && !sameValue(olds?.tsmPassword, inputs.tsmPassword)) {
    await client.nodes.setPassword(b, c, inputs.tsmPassword);
  }
  if (inputs.tsmName && !node.tsmName) {
    const activated = { ...node, tsmName: await client.nodes.activate(b, c, inputs.tsmName) };
    if (inputs.tsmPassword !== undefined) return { node: activated };
    return { node: activated, generatedPassword: await client.nodes.chosenPassword(b, c) };
  }
  if (inputs.tsmName && needsNewName(node.tsmName, inputs.tsmName)) throw new Error(renameRefused(node.tsmName!, inputs.tsmName));
  return { node, generatedPassword: inputs.tsmPassword === undefined ? olds?.generatedPassword : undefined };
}

async function adopt(inputs: Inputs): Promise<PortalNode> {
  const client = portal();
  const existing = await client.nodes.find(inputs.businessUnitId, inputs.consumerId);
  if (!existing) {
    throw new Error(
      `adoptId: consumer ${inputs.consumerId} in business unit ${inputs.businessUnitId} has no node; remove adoptId to create one`,
    );
  }
  const { ids } = await resolveFields(
    inputs,
    REFERENCES.map((r) => r.key),
  );
  const differing = SETTABLE.filter((k) => {
    const r = REFERENCES.find((x) => x.key === k);
    if (inputs[k] === undefined) return false;
    return r ? (existing as Record<string, any>)[k]?.id !== ids[r.idKey] : !sameValue((existing as Record<string, unknown>)[k], inputs[k]);
  });
  if (!differing.length) return existing;
  const { fields } = await resolveFields(inputs, managedKeys(SETTABLE, {}, inputs));
  return { ...existing, ...(await client.nodes.update(inputs.businessUnitId, inputs.consumerId, fields)) };
}

async function create(inputs: Inputs): Promise<pulumi.dynamic.CreateResult> {
  const client = portal();
  const { businessUnitId: b, consumerId: c } = inputs;
  let node: PortalNode;
  if (inputs.adoptId !== undefined) {
    node = await adopt(inputs);
  } else {
    const [{ fields }, server] = await Promise.all([
      resolveFields(
        inputs,
        SETTABLE.filter((k) => inputs[k] !== undefined),
      ),
      referencesFor(client).defaultServer(b),
    ]).catch(async (err: unknown) => {
      throw await explainMissing(err, referencesFor(client), [{ key: "businessUnitId", kind: "businessUnit", id: b }]);
    });
    fields.server = { id: server.id };
    try {
      node = await client.nodes.create(b, c, fields);
    } catch (err) {
      if (isNotFound(err)) {
        throw new Error(
          `consumerId: consumer ${c} does not exist in business unit ${b}. The portal deletes a consumer together with its node, ` +
            `so a replaced node needs a new consumer: give the Consumer a nodeName equal to the tsmName. (${(err as Error).message})`,
        );
      }
      if (!(err instanceof PortalError) || err.status !== 409) throw err;
      // The consumer already has a node. If it is not activated, or activated under
      // the declared name, it is what an interrupted create of this resource left
      // (the engine lost the answer when its host died): take it over. Anything else
      // is somebody else's node.
      const existing = await client.nodes.find(b, c);
      if (!existing || (existing.tsmName && !sameName(existing.tsmName, inputs.tsmName))) {
        throw new Error(
          `consumer ${c} already has a node${existing?.tsmName ? ` activated as ${existing.tsmName}` : ""}; ` +
            `to manage it, set adoptId: ${c} (and tsmName to its name). (${err.message})`,
        );
      }
      console.error(
        `backup-portal: consumer ${c} already has a node${existing.tsmName ? ` (${existing.tsmName})` : ""}, ` +
          "left by an interrupted create; managing it instead of creating another",
      );
      node = await adopt({ ...inputs, adoptId: c });
    }
  }
  const id = String(c);
  let finished: Awaited<ReturnType<typeof finish>>;
  try {
    finished = await finish(inputs, node, undefined);
  } catch (err) {
    // The node exists: record it (without the unfinished parts) so the next up completes it.
    const { tsmPassword: _unset, ...recorded } = outputsOf(inputs, node, {});
    throw new PartialCreateError(id, recorded, err);
  }
  return { id, outs: outputsOf(inputs, finished.node, { generatedPassword: finished.generatedPassword }) };
}

/** The declared inputs as the portal now has them; tsmPassword is never read back (the client rotates it). */
function portalInputs(node: PortalNode, props: Inputs): Inputs {
  const now = withPortalValues(node, props, ["contact", "cpuCount"]);
  for (const r of REFERENCES) {
    const ref = (node as Record<string, any>)[r.key];
    if (!ref) delete now[r.key];
    else if (ref.id !== props[r.idKey]) now[r.key] = ref.name ?? ref.id;
  }
  if (node.tsmName && !sameName(props.tsmName, node.tsmName)) now.tsmName = node.tsmName;
  return now;
}

async function read(id: string, props: Inputs): Promise<pulumi.dynamic.ReadResult> {
  const node = await portal().nodes.find(props.businessUnitId, Number(id));
  if (!node) return { id: "" };
  const { inputs, outputs } = readBack(props, portalInputs(node, props), [
    "businessUnitId",
    "consumerId",
    "adoptId",
    "tsmName",
    "tsmPassword",
    ...SETTABLE,
  ]);
  return { id, props: outputsOf(outputs, node, {}), inputs: defined(inputs) };
}

/** The node as the outputs of its last create, update or read describe it. */
function nodeFromOutputs(olds: Inputs): PortalNode {
  const node = {
    id: olds.nodeId,
    createdDate: olds.createdDate,
    href: olds.href,
    tsmName: olds.activatedName,
    server: olds.serverId !== undefined ? { id: olds.serverId } : undefined,
  } as PortalNode;
  // A reference without a stored id has an id-less entry, which outputsOf leaves out.
  for (const r of REFERENCES) (node as Record<string, unknown>)[r.key] = { id: olds[r.idKey] };
  return node;
}

async function update(_id: string, olds: Inputs, news: Inputs): Promise<pulumi.dynamic.UpdateResult> {
  const client = portal();
  const changed = SETTABLE.filter((k) => !sameValue(olds[k], news[k]));
  // The stored outputs describe the node; a PUT's answer overrides what it says (and only that, should a
  // portal answer with less than the whole node: a missing tsmName must not look like a node to activate).
  let node = nodeFromOutputs(olds);
  if (changed.length) {
    const { fields } = await resolveFields(news, managedKeys(SETTABLE, olds, news), olds);
    node = { ...node, ...(await client.nodes.update(news.businessUnitId, news.consumerId, fields)) };
    // A reference sent as null is cleared, also when the answer leaves it out (the stored id must go).
    for (const r of REFERENCES) if ((fields as Record<string, unknown>)[r.key] === null) delete (node as Record<string, unknown>)[r.key];
  }
  const finished = await finish(news, node, olds);
  return { outs: outputsOf(news, finished.node, { generatedPassword: finished.generatedPassword }) };
}

async function remove(id: string, props: Inputs): Promise<void> {
  // Removes the consumer too (the portal's rule); already gone is fine. A delete that succeeded is recorded,
  // so the consumer's Delete that follows sends nothing (dynamic/removed.ts).
  const client = portal();
  if (await client.nodes.delete(props.businessUnitId, Number(id))) noteRemovedWithNode(client, props.businessUnitId, Number(id));
}

export const nodeLifecycle: Lifecycle = withLoginHint(
  withPortalGuard("node", currentPortal, { check, diff, create, read, update, delete: remove }),
);

/** The provider object the host runs for every Node; `__provider` names it (dynamic/provider.ts). */
export const nodeProvider = hostProvider(nodeLifecycle);

/** Every Node's `__provider`: one line that `require`s this module for `nodeProvider`. */
export const nodeProviderText = serializedProvider(moduleSpecifier(__filename), "nodeProvider");

export class Node extends DynamicResource {
  declare readonly businessUnitId: pulumi.Output<number>;
  declare readonly consumerId: pulumi.Output<number>;
  declare readonly tsmName: pulumi.Output<string | undefined>;
  /** The name the backup server stored at activation (upper-case); undefined until activated. */
  declare readonly activatedName: pulumi.Output<string | undefined>;
  declare readonly tsmPassword: pulumi.Output<string | undefined>;
  /** The password the portal chose at activation, when tsmPassword is not declared (a secret). */
  declare readonly generatedPassword: pulumi.Output<string | undefined>;
  declare readonly nodeId: pulumi.Output<number>;
  declare readonly operatingSystemId: pulumi.Output<number>;
  declare readonly typeId: pulumi.Output<number>;
  declare readonly domainId: pulumi.Output<number>;
  declare readonly clientOptionSetId: pulumi.Output<number | undefined>;
  declare readonly serverId: pulumi.Output<number>;
  declare readonly createdDate: pulumi.Output<string>;
  declare readonly href: pulumi.Output<string>;

  constructor(name: string, args: NodeArgs, opts?: pulumi.CustomResourceOptions) {
    const tsmPassword = args.tsmPassword === undefined ? undefined : secret(args.tsmPassword);
    super(
      nodeProviderText,
      name,
      {
        ...args,
        tsmPassword,
        ...outputPlaceholders(NODE),
      },
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secretKeys(NODE)] },
      "backup-portal",
      "Node",
    );
  }
}
