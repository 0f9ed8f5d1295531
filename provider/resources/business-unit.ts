// BusinessUnit: a business unit of the portal, under a parent business unit.
import type * as pulumi from "@pulumi/pulumi";
import { portal, recoverInterruptedCreates } from "../dynamic/connection";
import { createdInThisRun, createKeyFor, createMarker, noteCreated } from "../dynamic/recovery";
import { hostProvider, Lifecycle, serializedProvider } from "../dynamic/provider";
import { DynamicResource } from "../dynamic/resource";
import { checkReferences, explainMissing, referencesFor } from "../dynamic/references";
import { checkAdoptId } from "../dynamic/adoption";
import { moduleSpecifier } from "../dynamic/specifier";
import { Failures, changedKeys, checkId, defined, managedKeys, readBack, sameValue, sentValue, withPortalValues } from "../dynamic/values";
import { checkFields, referenceInputs } from "../rules/check";
import { BUSINESS_UNIT_FIELDS } from "../rules/fields";
import { BUSINESS_UNIT, outputPlaceholders, replacingChanges } from "../rules/resources";
import { PortalError, unlessNotFound } from "../portal/errors";
import { BusinessUnit as PortalBusinessUnit, BusinessUnitFields } from "../portal/types";

export { configure as configurePortal } from "../dynamic/connection";
import { currentPortal, withLoginHint } from "../dynamic/connection";
import { withPortalGuard } from "../dynamic/portal-guard";

export interface BusinessUnitArgs {
  /** The parent business unit's id. Changing it replaces the business unit (the API cannot move one). */
  parentId: pulumi.Input<number | string>;
  name: pulumi.Input<string>;
  registrationNumber: pulumi.Input<string>;
  /** A windowsId (`W. Europe Standard Time`), a display name or an id. */
  timeZone: pulumi.Input<string | number>;
  note?: pulumi.Input<string>;
  /** Day of the month invoices are made (1-28). */
  invoiceDay?: pulumi.Input<number>;
  storageLimit?: pulumi.Input<number>;
  transferLimit?: pulumi.Input<number>;
  nodeLimit?: pulumi.Input<number>;
  passwordExpirationDays?: pulumi.Input<number>;
  supportResponsible?: pulumi.Input<boolean>;
  reportRemotely?: pulumi.Input<boolean>;
  useScheduleBindings?: pulumi.Input<boolean>;
  tags?: pulumi.Input<pulumi.Input<string>[]>;
  /** The policy domains the business unit may use: names or ids of its parent's default server's domains. */
  domainFilter?: pulumi.Input<pulumi.Input<string | number>[]>;
  /** The client option sets the business unit may use: names or ids of its parent's default server's option sets. */
  clientOptionSetFilter?: pulumi.Input<pulumi.Input<string | number>[]>;
  /** The billing storage type's id (the portal also shows it as `billingStorageType`). */
  billingStorageTypeId?: pulumi.Input<number>;
  /** Approvals a delete request needs before it is carried out (0: none). */
  requiredApproversOfDeleteRequest?: pulumi.Input<number>;
  /** A final approver decides delete requests. */
  finalDeleteRequestApprover?: pulumi.Input<boolean>;
  /** Users may approve their own delete requests. */
  usersCanApproveOwnRequests?: pulumi.Input<boolean>;
  /** Adopt this existing business unit instead of creating one; it is then updated to the declared inputs. */
  adoptId?: pulumi.Input<number | string>;
}
// The class adds a hidden input, `createKey`: the resource's identity, from which
// its create marker is derived (see dynamic/recovery.ts).

/** Fields sent to the portal as they are. */
const PLAIN = [
  "name",
  "registrationNumber",
  "note",
  "invoiceDay",
  "storageLimit",
  "transferLimit",
  "nodeLimit",
  "passwordExpirationDays",
  "supportResponsible",
  "reportRemotely",
  "useScheduleBindings",
  "tags",
  "billingStorageTypeId",
  "requiredApproversOfDeleteRequest",
  "finalDeleteRequestApprover",
  "usersCanApproveOwnRequests",
] as const;
/** Lists of names sent as ids, and the output holding the ids they resolved to. */
const FILTERS = [
  { key: "domainFilter", kind: "domain", idsKey: "domainFilterIds" },
  { key: "clientOptionSetFilter", kind: "clientOptionSet", idsKey: "clientOptionSetFilterIds" },
] as const;
const SETTABLE = [...PLAIN, ...FILTERS.map((x) => x.key)] as const;
const INPUT_KEYS = ["parentId", "timeZone", ...SETTABLE] as const;

type Inputs = Record<string, any>;

async function check(olds: Inputs, news: Inputs): Promise<pulumi.dynamic.CheckResult> {
  const inputs: Inputs = { ...news };
  const f = new Failures();
  checkId(f, inputs, "parentId");
  checkFields(f, inputs, BUSINESS_UNIT_FIELDS);
  checkId(f, inputs, "adoptId", false);
  // The filters name the parent's default server's lists: a new business unit has no server of its own yet.
  const refs = () => referencesFor(portal());
  await checkReferences(f, refs, olds, inputs, referenceInputs(f, BUSINESS_UNIT_FIELDS));
  await checkAdoptId(f, refs, olds, inputs, { kind: "businessUnit", parentKey: "parentId" });
  return { inputs, failures: f.list };
}

async function diff(_id: string, olds: Inputs, news: Inputs): Promise<pulumi.dynamic.DiffResult> {
  const changed = changedKeys(INPUT_KEYS, olds, news);
  return { changes: changed.length > 0, replaces: replacingChanges(BUSINESS_UNIT, changed, olds), deleteBeforeReplace: false };
}

/**
 * The body for `keys` (a key the inputs no longer hold is cleared); the time zone and the filters as ids (the ones
 * `known` outputs hold when they did not change, else resolved: a filter against the parent's default server).
 */
async function fieldsOf(inputs: Inputs, keys: readonly string[], known: Inputs = {}): Promise<BusinessUnitFields> {
  const refs = referencesFor(portal());
  const fields: Record<string, unknown> = {};
  for (const k of keys) {
    const filter = FILTERS.find((x) => x.key === k);
    if (k === "timeZone") {
      const id =
        sameValue(known.timeZone, inputs.timeZone) && known.timeZoneId !== undefined
          ? known.timeZoneId
          : (await refs.resolve("timeZone", inputs.timeZone)).id;
      fields.timeZone = { id };
    } else if (filter && Array.isArray(inputs[k])) {
      const ids: number[] =
        sameValue(known[k], inputs[k]) && Array.isArray(known[filter.idsKey])
          ? known[filter.idsKey]
          : await Promise.all(
              (inputs[k] as Array<string | number>).map(async (v) => (await refs.resolve(filter.kind, v, inputs.parentId)).id),
            );
      fields[k] = ids.map((id) => ({ id }));
    } else {
      fields[k] = filter ? [] : sentValue(inputs, k);
    }
  }
  return fields as BusinessUnitFields;
}

const idsOf = (list: unknown): number[] | undefined =>
  Array.isArray(list) ? list.map((x) => (x && typeof x === "object" ? (x as { id: number }).id : Number(x))) : undefined;

function outputsOf(inputs: Inputs, bu: PortalBusinessUnit): Inputs {
  const outs: Inputs = { ...inputs, businessUnitId: bu.id, createdDate: bu.createdDate, href: bu.href, timeZoneId: bu.timeZone?.id };
  // The ids a declared filter stands for, so that refresh can tell the user's names still mean the same.
  for (const x of FILTERS) outs[x.idsKey] = inputs[x.key] !== undefined ? (idsOf(bu[x.key]) ?? []) : undefined;
  return defined(outs);
}

/** Takes over business unit `adoptId` (read here unless the caller has it) and brings it to the inputs. */
async function adopt(inputs: Inputs, found?: PortalBusinessUnit): Promise<PortalBusinessUnit> {
  const client = portal();
  const id = Number(inputs.adoptId);
  const existing = found ?? (await unlessNotFound(client.businessUnits.get(id)));
  if (!existing) throw new Error(`adoptId: no business unit ${id} exists on the portal; check the id or remove adoptId to create one`);
  const parent = existing.parentBusinessUnit?.id;
  if (parent !== undefined && parent !== inputs.parentId) {
    throw new Error(`adoptId: business unit ${id} is a child of ${parent}, but parentId is ${inputs.parentId}; set parentId to ${parent}`);
  }
  return changedKeys(["timeZone", ...SETTABLE], portalInputs(existing, inputs), inputs).length
    ? client.businessUnits.update(id, await fieldsOf(inputs, ["timeZone", ...managedKeys(SETTABLE, {}, inputs)]))
    : existing;
}

async function create(inputs: Inputs): Promise<pulumi.dynamic.CreateResult> {
  if (inputs.adoptId !== undefined) {
    const bu = await adopt(inputs);
    return { id: String(bu.id), outs: outputsOf(inputs, bu) };
  }
  const client = portal();
  const marker = createMarker(inputs.createKey, [inputs.parentId]);
  const leftover =
    marker && recoverInterruptedCreates() && !createdInThisRun("businessUnit", inputs.parentId)
      ? await client.businessUnits.findCreated(inputs.parentId, inputs.name, marker)
      : undefined;
  if (leftover) {
    console.error(`backup-portal: business unit ${leftover.id} was made by an interrupted create of this resource; taking it over`);
    const bu = await adopt({ ...inputs, adoptId: leftover.id }, leftover);
    return { id: String(bu.id), outs: outputsOf(inputs, bu) };
  }
  let bu: PortalBusinessUnit;
  try {
    const fields = await fieldsOf(inputs, ["timeZone", ...SETTABLE.filter((k) => inputs[k] !== undefined)]);
    bu = await client.businessUnits.create(inputs.parentId, fields, marker);
  } catch (err) {
    throw await explainMissing(err, referencesFor(client), [{ key: "parentId", kind: "businessUnit", id: inputs.parentId }]);
  }
  noteCreated("businessUnit", bu.id);
  return { id: String(bu.id), outs: outputsOf(inputs, bu) };
}

/** The declared inputs as the portal now has them (keys the user did not declare are left out). */
function portalInputs(bu: PortalBusinessUnit, declared: Inputs): Inputs {
  // The spec lists billingStorageTypeId and billingStorageType; a portal may answer either.
  const now = withPortalValues({ ...bu, billingStorageTypeId: bu.billingStorageTypeId ?? bu.billingStorageType }, declared, PLAIN);
  // A filter keeps the user's names while the portal holds the ids they resolved to.
  for (const x of FILTERS) {
    if (!(x.key in declared)) continue;
    const ids = idsOf(bu[x.key]) ?? [];
    if (sameValue(ids, declared[x.idsKey] ?? [])) continue;
    if (!ids.length) delete now[x.key];
    else now[x.key] = bu[x.key]!.map((r) => r.name ?? r.id);
  }
  if (bu.parentBusinessUnit?.id !== undefined) now.parentId = bu.parentBusinessUnit.id;
  // Keep the user's spelling of the time zone while it still names the same one.
  if (bu.timeZone?.id !== undefined && bu.timeZone.id !== declared.timeZoneId) {
    now.timeZone = bu.timeZone.windowsId ?? String(bu.timeZone.id);
  }
  return now;
}

async function read(id: string, props: Inputs): Promise<pulumi.dynamic.ReadResult> {
  const bu = await unlessNotFound(portal().businessUnits.get(Number(id)));
  if (!bu) return { id: "" };
  const { inputs, outputs } = readBack(props, portalInputs(bu, props), ["adoptId", "createKey", ...INPUT_KEYS]);
  return { id, props: outputsOf(outputs, bu), inputs };
}

async function update(id: string, olds: Inputs, news: Inputs): Promise<pulumi.dynamic.UpdateResult> {
  // A new parentId never gets here: Diff replaces the business unit for it.
  const changed = changedKeys(INPUT_KEYS, olds, news);
  const bu = changed.length
    ? await portal().businessUnits.update(Number(id), await fieldsOf(news, ["timeZone", ...managedKeys(SETTABLE, olds, news)], olds))
    : await portal().businessUnits.get(Number(id));
  return { outs: outputsOf(news, bu) };
}

async function remove(id: string): Promise<void> {
  try {
    await portal().businessUnits.delete(Number(id));
  } catch (err) {
    if (err instanceof PortalError && err.status === 409) {
      throw new Error(
        `business unit ${id} still has child business units or consumers, so the portal keeps it. ` +
          `Delete them first (resources in this stack are deleted children-first), or keep the business unit with \`protect\` or \`retainOnDelete\`. Portal said: ${err.message}`,
      );
    }
    throw err;
  }
}

export const businessUnitLifecycle: Lifecycle = withLoginHint(
  withPortalGuard("business unit", currentPortal, { check, diff, create, read, update, delete: remove }),
);

/** The provider object the host runs for every BusinessUnit; `__provider` names it (dynamic/provider.ts). */
export const businessUnitProvider = hostProvider(businessUnitLifecycle);

/** Every BusinessUnit's `__provider`: one line that `require`s this module for `businessUnitProvider`. */
export const businessUnitProviderText = serializedProvider(moduleSpecifier(__filename), "businessUnitProvider");

export class BusinessUnit extends DynamicResource {
  declare readonly parentId: pulumi.Output<number>;
  declare readonly name: pulumi.Output<string>;
  declare readonly registrationNumber: pulumi.Output<string>;
  declare readonly timeZone: pulumi.Output<string>;
  declare readonly note: pulumi.Output<string | undefined>;
  declare readonly tags: pulumi.Output<string[] | undefined>;
  /** The portal's id of the business unit (also the resource id, as a string). */
  declare readonly businessUnitId: pulumi.Output<number>;
  declare readonly timeZoneId: pulumi.Output<number>;
  /** The ids the declared domainFilter resolved to. */
  declare readonly domainFilterIds: pulumi.Output<number[] | undefined>;
  /** The ids the declared clientOptionSetFilter resolved to. */
  declare readonly clientOptionSetFilterIds: pulumi.Output<number[] | undefined>;
  declare readonly createdDate: pulumi.Output<string>;
  declare readonly href: pulumi.Output<string>;

  constructor(name: string, args: BusinessUnitArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      businessUnitProviderText,
      name,
      {
        ...args,
        createKey: createKeyFor("BusinessUnit", name),
        ...outputPlaceholders(BUSINESS_UNIT),
      },
      opts,
      "backup-portal",
      "BusinessUnit",
    );
  }
}
