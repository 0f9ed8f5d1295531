// Consumer: a consumption unit of a business unit; it carries at most one backup node.
import type * as pulumi from "@pulumi/pulumi";
import { portal, recoverInterruptedCreates } from "../dynamic/connection";
import { createdInThisRun, createKeyFor, createMarker } from "../dynamic/recovery";
import { takeRemovedWithNode } from "../dynamic/removed";
import { hostProvider, Lifecycle, serializedProvider } from "../dynamic/provider";
import { DynamicResource } from "../dynamic/resource";
import { explainMissing, referencesFor } from "../dynamic/references";
import { checkAdoptId } from "../dynamic/adoption";
import { moduleSpecifier } from "../dynamic/specifier";
import {
  Failures,
  changedKeys,
  checkId,
  isUnknown,
  defined,
  managedKeys,
  readBack,
  sameValue,
  sentValue,
  withPortalValues,
} from "../dynamic/values";
import { checkFields } from "../rules/check";
import { CONSUMER_FIELDS } from "../rules/fields";
import { CONSUMER, inputDefaults, outputPlaceholders, replacingChanges } from "../rules/resources";
import { unlessNotFound } from "../portal/errors";
import { prefetchNodeReferences } from "./node";
import { Consumer as PortalConsumer, ConsumerFields } from "../portal/types";

export { configure as configurePortal } from "../dynamic/connection";
import { currentPortal, withLoginHint } from "../dynamic/connection";
import { withPortalGuard } from "../dynamic/portal-guard";

export interface ConsumerArgs {
  /** The business unit it belongs to. Changing it replaces the consumer. */
  businessUnitId: pulumi.Input<number | string>;
  /** Not unique on the portal: identity is the id. */
  name: pulumi.Input<string>;
  note?: pulumi.Input<string>;
  tags?: pulumi.Input<pulumi.Input<string>[]>;
  limitHighStorage?: pulumi.Input<number>;
  allowNoActivity?: pulumi.Input<boolean>;
  /**
   * The tsmName of the node this consumer carries ("*" for a node not activated). Deleting a node deletes
   * its consumer on the portal, so renaming or removing the node replaces the consumer: a change from a
   * set value replaces it; setting it on a consumer without one does not.
   */
  nodeName?: pulumi.Input<string>;
  /** On delete, also remove the node's schedules on the backup server (default true). */
  deleteAssociations?: pulumi.Input<boolean>;
  /** On delete, the comment the portal records. */
  deletionComment?: pulumi.Input<string>;
  /** Adopt this existing consumer instead of creating one; it is then updated to the declared inputs. */
  adoptId?: pulumi.Input<number | string>;
}

const SETTABLE = ["name", "note", "tags", "limitHighStorage", "allowNoActivity"] as const;
/** Inputs that only matter to this provider (when deleting), never sent to the portal. */
const LOCAL = ["deleteAssociations", "deletionComment"] as const;
const INPUT_KEYS = ["businessUnitId", "nodeName", ...SETTABLE, ...LOCAL] as const;

type Inputs = Record<string, any>;

async function check(olds: Inputs, news: Inputs): Promise<pulumi.dynamic.CheckResult> {
  const inputs: Inputs = { ...news };
  const f = new Failures();
  checkId(f, inputs, "businessUnitId");
  checkFields(f, inputs, CONSUMER_FIELDS);
  checkId(f, inputs, "adoptId", false);
  if (!f.list.length && expectsNewNode(olds, inputs)) prefetchNodeReferences(inputs.businessUnitId);
  await checkAdoptId(f, () => referencesFor(portal()), olds, inputs, { kind: "consumer", parentKey: "businessUnitId" });
  return { inputs, failures: f.list };
}

/** A consumer declared with a node (nodeName) that is new, or moves: a new node will follow it. */
function expectsNewNode(olds: Inputs, inputs: Inputs): boolean {
  const { businessUnitId: b, nodeName } = inputs;
  if (typeof b !== "number" || typeof nodeName !== "string" || isUnknown(nodeName)) return false;
  return !sameValue(olds.businessUnitId, b) || !sameValue(olds.nodeName, nodeName);
}

async function diff(_id: string, olds: Inputs, news: Inputs): Promise<pulumi.dynamic.DiffResult> {
  const changed = changedKeys(INPUT_KEYS, olds, news);
  // A node added to a consumer without one keeps the consumer; a node renamed or
  // removed takes its consumer with it on the portal, so the consumer is replaced.
  const replaces = replacingChanges(CONSUMER, changed, olds);
  return { changes: changed.length > 0, replaces, deleteBeforeReplace: false };
}

/** The body for `keys` (settable ones; a key the inputs no longer hold is cleared). */
function fieldsOf(inputs: Inputs, keys: readonly string[]): ConsumerFields {
  const fields: Record<string, unknown> = {};
  for (const k of keys) fields[k] = sentValue(inputs, k);
  return fields as ConsumerFields;
}

function outputsOf(inputs: Inputs, c: PortalConsumer): Inputs {
  // Not dataSourceState: it follows the node's activation, a change of another
  // resource, and would show on every refresh after a node is activated.
  return defined({ ...inputs, consumerId: c.id, createdDate: c.createdDate, href: c.href });
}

/** The declared inputs as the portal now has them (its business unit is the one it was read from). */
function portalInputs(c: PortalConsumer, declared: Inputs): Inputs {
  return withPortalValues(c, declared, SETTABLE);
}

/** Takes over consumer `adoptId` (read here unless the caller has it) and brings it to the inputs. */
async function adopt(inputs: Inputs, found?: PortalConsumer): Promise<PortalConsumer> {
  const client = portal();
  const id = Number(inputs.adoptId);
  const existing = found ?? (await unlessNotFound(client.consumers.get(inputs.businessUnitId, id)));
  if (!existing) {
    throw new Error(
      `adoptId: no consumer ${id} exists in business unit ${inputs.businessUnitId}; check both ids or remove adoptId to create one`,
    );
  }
  return changedKeys(SETTABLE, portalInputs(existing, inputs), inputs).length
    ? client.consumers.update(inputs.businessUnitId, id, fieldsOf(inputs, managedKeys(SETTABLE, {}, inputs)))
    : existing;
}

async function create(inputs: Inputs): Promise<pulumi.dynamic.CreateResult> {
  try {
    return await createOrAdopt(inputs);
  } catch (err) {
    throw await explainMissing(err, referencesFor(portal()), [{ key: "businessUnitId", kind: "businessUnit", id: inputs.businessUnitId }]);
  }
}

async function createOrAdopt(inputs: Inputs): Promise<pulumi.dynamic.CreateResult> {
  if (inputs.adoptId !== undefined) {
    const c = await adopt(inputs);
    return { id: String(c.id), outs: outputsOf(inputs, c) };
  }
  const client = portal();
  const b = inputs.businessUnitId;
  const marker = createMarker(inputs.createKey, [b, inputs.nodeName ?? null]);
  const leftover =
    marker && recoverInterruptedCreates() && !createdInThisRun("businessUnit", b)
      ? await client.consumers.findCreated(b, inputs.name, marker)
      : undefined;
  if (leftover) {
    console.error(`backup-portal: consumer ${leftover.id} was made by an interrupted create of this resource; taking it over`);
    const c = await adopt({ ...inputs, adoptId: leftover.id }, leftover);
    return { id: String(c.id), outs: outputsOf(inputs, c) };
  }
  const c = await client.consumers.create(
    b,
    fieldsOf(
      inputs,
      SETTABLE.filter((k) => inputs[k] !== undefined),
    ),
    marker,
  );
  return { id: String(c.id), outs: outputsOf(inputs, c) };
}

async function read(id: string, props: Inputs): Promise<pulumi.dynamic.ReadResult> {
  const c = await unlessNotFound(portal().consumers.get(props.businessUnitId, Number(id)));
  if (!c) return { id: "" };
  const { inputs, outputs } = readBack(props, portalInputs(c, props), ["adoptId", "createKey", ...INPUT_KEYS]);
  return { id, props: outputsOf(outputs, c), inputs };
}

async function update(id: string, olds: Inputs, news: Inputs): Promise<pulumi.dynamic.UpdateResult> {
  const changed = changedKeys(SETTABLE, olds, news);
  const client = portal();
  const c = changed.length
    ? await client.consumers.update(news.businessUnitId, Number(id), fieldsOf(news, managedKeys(SETTABLE, olds, news)))
    : await client.consumers.get(news.businessUnitId, Number(id));
  return { outs: outputsOf(news, c) };
}

async function remove(id: string, props: Inputs): Promise<void> {
  const client = portal();
  // Its node's DELETE succeeded in this host: the portal removed the consumer with it (spec 000).
  if (takeRemovedWithNode(client, props.businessUnitId, Number(id))) return;
  // Otherwise ask; already gone is fine (its node was deleted by another run or outside Pulumi).
  await client.consumers.delete(props.businessUnitId, Number(id), {
    deleteAssociations: props.deleteAssociations,
    deletionComment: props.deletionComment,
  });
}

export const consumerLifecycle: Lifecycle = withLoginHint(
  withPortalGuard("consumer", currentPortal, { check, diff, create, read, update, delete: remove }),
);

/** The provider object the host runs for every Consumer; `__provider` names it (dynamic/provider.ts). */
export const consumerProvider = hostProvider(consumerLifecycle);

/** Every Consumer's `__provider`: one line that `require`s this module for `consumerProvider`. */
export const consumerProviderText = serializedProvider(moduleSpecifier(__filename), "consumerProvider");

export class Consumer extends DynamicResource {
  declare readonly businessUnitId: pulumi.Output<number>;
  declare readonly name: pulumi.Output<string>;
  declare readonly note: pulumi.Output<string | undefined>;
  declare readonly tags: pulumi.Output<string[] | undefined>;
  /** The portal's id of the consumer (also the resource id, as a string). */
  declare readonly consumerId: pulumi.Output<number>;
  declare readonly createdDate: pulumi.Output<string>;
  declare readonly href: pulumi.Output<string>;

  constructor(name: string, args: ConsumerArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      consumerProviderText,
      name,
      {
        ...inputDefaults(CONSUMER),
        ...args,
        createKey: createKeyFor("Consumer", name),
        ...outputPlaceholders(CONSUMER),
      },
      opts,
      "backup-portal",
      "Consumer",
    );
  }
}
