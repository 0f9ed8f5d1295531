// The rules of every field a resource declares, one table per portal object. The
// resources' Check (provider/resources/*.ts), the stack-config validation
// (provider/tenants/validate.ts) and the JSON Schema of `backup-portal:tenants`
// (provider/tenants/schema.ts) all read these tables, so a value one of them
// accepts the others accept too. The emulator keeps its own rules as the portal's
// stand-in; test/rules/fields.property.test.ts runs the edges of every rule here
// through Check and through the emulator's create, and fails when Check accepts
// what the emulator refuses. Where a rule here is stricter than the emulator's,
// `stricter` says why.
import type { ReferenceKind } from "../dynamic/references";
import { tsmNameProblem } from "../portal/nodes";
import { MARKER_PREFIX } from "../portal/marker";

/**
 * What a change of an input does to the resource: "always" replaces it; "onceSet" replaces it when the input had a
 * value before (setting it the first time changes it in place). Diff reads it (resourceReplaces in ./resources.ts),
 * and so do the reference pages and a schema's replaceOnChanges.
 */
export type Replaces = "always" | "onceSet";

/**
 * line: one line, no control characters. multiline: newline, carriage return and tab allowed, no other control
 * characters. tsmName: the backup server's naming rules (1-64 of letters, digits, `_ . - + &`).
 */
export type Text = "line" | "multiline" | "tsmName";

interface Common {
  /** What the field holds: schema descriptions and the README. */
  doc: string;
  /** Check refuses the resource without it. */
  required?: boolean;
  /** Used by this provider only (never part of a create body): the emulator comparison leaves it out. */
  local?: boolean;
  /** Why this rule refuses a value the portal (the emulator) would take. */
  stricter?: string;
  /** A change of it replaces the resource (see Replaces); absent: changed in place. */
  replaces?: Replaces;
  /**
   * Where the value goes on the portal, when not the field of the same name (references: `<key>.id`, lists of
   * references `<key>[].id`): another field, an endpoint, a query parameter.
   */
  portalField?: string;
  /** The value the resource class gives it when the input is left out (absent: none, the portal decides). */
  default?: string | number | boolean;
}

export interface StringRule extends Common {
  kind: "string";
  text: Text;
  maxLength: number;
  /** A value of only whitespace is refused (the portal refuses it for this field). */
  nonBlank?: boolean;
}

export interface NumberRule extends Common {
  kind: "integer" | "number";
  min: number;
  max?: number;
}

export interface BooleanRule extends Common {
  kind: "boolean";
}

export interface StringsRule extends Common {
  kind: "strings";
  text: Text;
  /** Each item matches this (stack-only lists such as aliases). */
  itemPattern?: RegExp;
  itemDoc?: string;
}

/** A name (case-insensitive) or a positive id of the portal's reference data; `references`: a list of them. */
export interface ReferenceRule extends Common {
  kind: "reference" | "references";
  ref: ReferenceKind;
  /** The input holding the business unit whose default server lists the names (domains, option sets). */
  scope?: "businessUnitId" | "parentId";
}

export type FieldRule = StringRule | NumberRule | BooleanRule | StringsRule | ReferenceRule;
export type FieldTable = Record<string, FieldRule>;

const NUMBER_KINDS = new Set<string>(["integer", "number", "reference", "references"]);
/** Whether a rule takes a number (references take an id), so that how a YAML reader reads number text matters. */
export const takesNumber = (rule: { kind: string }): boolean => NUMBER_KINDS.has(rule.kind);

/** Reference names: at most this long (no portal list holds a longer name). */
export const REFERENCE_NAME_MAX = 200;

/**
 * The largest integer (and id) a rule accepts: beyond 2^53 - 1 a number is not exact, so `9007199254740993` reads
 * as 9007199254740992, another object, and `1e21` is an "integer" no portal stores. Every integer rule and every
 * id is bounded by it; the schema says so as `maximum`.
 */
export const MAX_INTEGER = Number.MAX_SAFE_INTEGER;
/** Why the integer rules refuse more than the portal (the emulator) does. */
export const INTEGER_STRICTER = `integers beyond ${MAX_INTEGER} (2^53 - 1) are not exact in JSON: the portal would store another number`;

/**
 * A portal id given as a number or as a string of digits (white space around it allowed), positive and at most
 * MAX_INTEGER; undefined when it is not one. Check (parentId, businessUnitId, consumerId, adoptId, NodeProxy ids),
 * reference ids and the stack validation all read ids through this.
 */
export function portalId(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isSafeInteger(v) && v > 0 ? v : undefined;
  if (typeof v !== "string" || !/^[1-9][0-9]*$/.test(v.trim())) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The rule's upper bound: its own, or MAX_INTEGER for an integer without one. */
export function upperBound(rule: NumberRule): number | undefined {
  return rule.max ?? (rule.kind === "integer" ? MAX_INTEGER : undefined);
}

/**
 * Tags: the provider marks its creates with a tag starting with MARKER_PREFIX and removes such tags when it reads
 * an object back, so a user's tag with that prefix would vanish on every read and show a diff forever.
 */
const TAGS: StringsRule = {
  kind: "strings",
  text: "line",
  itemPattern: new RegExp(`^(?!${MARKER_PREFIX.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")})`),
  itemDoc: `a tag that does not start with "${MARKER_PREFIX}", the prefix this provider marks its creates with (it removes such tags on read); rename the tag`,
  doc: "tags",
};

export const BUSINESS_UNIT_FIELDS: FieldTable = {
  name: { kind: "string", text: "line", maxLength: 200, nonBlank: true, required: true, doc: "the business unit's name" },
  registrationNumber: {
    kind: "string",
    text: "line",
    maxLength: 100,
    nonBlank: true,
    required: true,
    doc: "the company registration number",
  },
  timeZone: { kind: "reference", ref: "timeZone", required: true, doc: "a windowsId (W. Europe Standard Time), a display name or an id" },
  note: { kind: "string", text: "multiline", maxLength: 4000, doc: "a free-text note" },
  invoiceDay: {
    kind: "integer",
    min: 1,
    max: 28,
    doc: "day of the month invoices are made",
    stricter: "the portal takes 29-31, but those days do not occur in every month: February would have no invoice day",
  },
  storageLimit: { kind: "number", min: 0, doc: "storage limit (0 appears as a value; unit not documented)" },
  transferLimit: { kind: "number", min: 0, doc: "transfer limit (unit not documented)" },
  nodeLimit: { kind: "integer", min: 0, doc: "the most nodes the business unit may have" },
  passwordExpirationDays: { kind: "integer", min: 0, doc: "days until a user's password expires (0: never)" },
  supportResponsible: { kind: "boolean", doc: "the business unit handles its own support" },
  reportRemotely: { kind: "boolean", doc: "report remotely" },
  useScheduleBindings: { kind: "boolean", doc: "use schedule bindings" },
  tags: TAGS,
  domainFilter: {
    kind: "references",
    ref: "domain",
    scope: "parentId",
    doc: "the policy domains the business unit may use: names or ids of the default server's domains",
  },
  clientOptionSetFilter: {
    kind: "references",
    ref: "clientOptionSet",
    scope: "parentId",
    doc: "the client option sets the business unit may use: names or ids of the default server's option sets",
  },
  billingStorageTypeId: {
    kind: "integer",
    min: 0,
    portalField: "`billingStorageTypeId` (read back from `billingStorageType` when the portal answers with that)",
    doc: "the billing storage type's id (the portal also shows it as billingStorageType)",
  },
  requiredApproversOfDeleteRequest: { kind: "integer", min: 0, doc: "approvals a delete request needs before it is carried out (0: none)" },
  finalDeleteRequestApprover: { kind: "boolean", doc: "a final approver decides delete requests" },
  usersCanApproveOwnRequests: { kind: "boolean", doc: "users may approve their own delete requests" },
};

export const CONSUMER_FIELDS: FieldTable = {
  name: {
    kind: "string",
    text: "line",
    maxLength: 200,
    nonBlank: true,
    required: true,
    doc: "the consumer's name (not unique on the portal)",
  },
  note: { kind: "string", text: "multiline", maxLength: 4000, doc: "a free-text note" },
  tags: TAGS,
  limitHighStorage: { kind: "number", min: 0, doc: "high storage limit" },
  allowNoActivity: { kind: "boolean", doc: "no warning when the node has no activity" },
  nodeName: {
    kind: "string",
    text: "line",
    maxLength: 64,
    local: true,
    // The portal deletes a consumer together with its node: a renamed or removed node takes the consumer along.
    replaces: "onceSet",
    portalField: "none: the tsmName of the node it carries, kept so that a new node replaces the consumer",
    doc: 'the tsmName of the node it carries ("*" before activation)',
  },
  deleteAssociations: {
    kind: "boolean",
    local: true,
    default: true,
    portalField: "the `deleteAssociations` query parameter of the consumer's DELETE",
    doc: "on delete, also remove the node's schedules on the backup server",
  },
  deletionComment: {
    kind: "string",
    text: "line",
    maxLength: 1000,
    local: true,
    portalField: "the `deletionComment` query parameter of the consumer's DELETE",
    doc: "on delete, the comment the portal records",
  },
};

export const NODE_FIELDS: FieldTable = {
  operatingSystem: { kind: "reference", ref: "operatingSystem", required: true, doc: "operating system: name or id, e.g. Linux" },
  type: { kind: "reference", ref: "type", required: true, doc: "node type: name or id, e.g. File server" },
  domain: {
    kind: "reference",
    ref: "domain",
    scope: "businessUnitId",
    required: true,
    doc: "policy domain of the default backup server: name or id",
  },
  clientOptionSet: {
    kind: "reference",
    ref: "clientOptionSet",
    scope: "businessUnitId",
    doc: "client option set of the default backup server: name or id",
  },
  contact: { kind: "string", text: "line", maxLength: 500, doc: "contact information" },
  cpuCount: {
    kind: "integer",
    min: 1,
    max: 4096,
    required: true,
    doc: "CPUs of the machine (billing)",
    stricter:
      "the portal takes a node without cpuCount and 0 to 100000; a backed-up machine has at least one CPU and no machine " +
      "has more than 4096, so anything else is a typo that would bill wrongly",
  },
  tsmName: {
    kind: "string",
    text: "tsmName",
    maxLength: 64,
    local: true,
    portalField: "the node's activation (`.../node/activate?tsmName=`); the backup server stores it upper-case as `tsmName`",
    doc:
      "activates the node under this name (1-64 of A-Z 0-9 _ . - + &); the backup server never renames a node, so " +
      "another name needs a new consumer (change the Consumer's nodeName)",
  },
};

// ---- checking one value against its rule ----

/** A value for a message: numbers as written (Infinity stays Infinity), never "null" for what is not null. */
export function show(v: unknown): string {
  if (Array.isArray(v)) return "a list";
  if (v === null) return "null";
  if (typeof v === "object") return "a map";
  if (typeof v === "string") return JSON.stringify(v);
  return String(v);
}

const CONTROL_LINE = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_MULTILINE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/** Why `s` breaks the character rule `text`; undefined when it does not. */
export function textProblem(s: string, text: Text): string | undefined {
  if (text === "tsmName") return tsmNameProblem(s);
  const re = text === "line" ? CONTROL_LINE : CONTROL_MULTILINE;
  const m = re.exec(s);
  if (m) {
    const code = `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
    return `contains the control character ${code}; ${text === "line" ? "use printable characters on one line" : "only newlines and tabs are allowed"}`;
  }
  return undefined;
}

function stringProblem(v: unknown, rule: StringRule): string | undefined {
  if (typeof v !== "string") return `must be a ${rule.nonBlank ? "non-empty " : ""}string, got ${show(v)}`;
  if (rule.nonBlank && v.trim() === "") return `must be a non-empty string, got ${show(v)} (only whitespace)`;
  if (rule.text === "tsmName") return tsmNameProblem(v);
  if (v.length > rule.maxLength) return `is ${v.length} characters long; at most ${rule.maxLength} are allowed`;
  return textProblem(v, rule.text);
}

function numberProblem(v: unknown, rule: NumberRule): string | undefined {
  const max = upperBound(rule);
  const ok =
    typeof v === "number" &&
    Number.isFinite(v) &&
    (rule.kind === "number" || Number.isSafeInteger(v)) &&
    v >= rule.min &&
    (max === undefined || v <= max);
  if (ok) return undefined;
  if (rule.kind === "number") return `must be a number ≥ ${rule.min}${rule.max === undefined ? "" : ` and ≤ ${rule.max}`}, got ${show(v)}`;
  // The safe-integer bound is named only when it is what the value breaks.
  const unsafe = rule.max === undefined && typeof v === "number" && Number.isInteger(v) && v > MAX_INTEGER;
  const range = rule.max !== undefined || unsafe ? `an integer from ${rule.min} to ${max}` : `an integer ≥ ${rule.min}`;
  return `must be ${range}, got ${show(v)}`;
}

function referenceProblem(v: unknown, what: string): string | undefined {
  const badId = `must name the ${what} or give its id (a positive integer up to ${MAX_INTEGER}), got ${show(v)}`;
  if (typeof v === "number") return portalId(v) !== undefined ? undefined : badId;
  if (typeof v !== "string" || v.trim() === "") return `must name the ${what} or give its id, got ${show(v)}`;
  // Digits are read as an id (dynamic/references.ts): one beyond the safe range would resolve to another.
  if (/^\d+$/.test(v.trim()) && !Number.isSafeInteger(Number(v))) return badId;
  if (v.length > REFERENCE_NAME_MAX) return `is ${v.length} characters long; no ${what} has a name longer than ${REFERENCE_NAME_MAX}`;
  return textProblem(v, "line");
}

export const REFERENCE_WHAT: Record<ReferenceKind, string> = {
  timeZone: "time zone",
  operatingSystem: "operating system",
  type: "node type",
  domain: "policy domain",
  clientOptionSet: "client option set",
};

/**
 * Why `v` (present: neither undefined nor null) breaks `rule`, as "must be …, got …"; undefined when it does not.
 * `isUnknown` says which values are not known yet (a preview's unknowns): they pass, and so do list items.
 */
export function fieldProblem(v: unknown, rule: FieldRule, isUnknown: (v: unknown) => boolean = () => false): string | undefined {
  if (isUnknown(v)) return undefined;
  switch (rule.kind) {
    case "string":
      return stringProblem(v, rule);
    case "integer":
    case "number":
      return numberProblem(v, rule);
    case "boolean":
      return typeof v === "boolean" ? undefined : `must be true or false, got ${show(v)}`;
    case "reference":
      return referenceProblem(v, REFERENCE_WHAT[rule.ref]);
    case "strings":
    case "references": {
      const what = rule.kind === "strings" ? "a list of strings" : `a list of ${REFERENCE_WHAT[rule.ref]} names or ids`;
      if (!Array.isArray(v)) return `must be ${what}, got ${show(v)}`;
      for (const [i, item] of v.entries()) {
        if (isUnknown(item)) continue;
        const problem =
          rule.kind === "references" ? referenceProblem(item, REFERENCE_WHAT[rule.ref]) : itemProblem(item, rule as StringsRule);
        if (problem) return `must be ${what}; item ${i} (${show(item)}) ${problem}`;
      }
      return undefined;
    }
  }
}

function itemProblem(item: unknown, rule: StringsRule): string | undefined {
  if (typeof item !== "string") return "is not a string";
  return (
    textProblem(item, rule.text) ??
    (rule.itemPattern && !rule.itemPattern.test(item) ? `does not match: ${rule.itemDoc ?? rule.itemPattern.source}` : undefined)
  );
}

/** The fix a missing required field's message names. */
export function requiredHint(rule: FieldRule): string {
  switch (rule.kind) {
    case "string":
      return "add it as a string";
    case "integer":
      return `add an integer ≥ ${rule.min}`;
    case "number":
      return `add a number ≥ ${rule.min}`;
    case "boolean":
      return "add true or false";
    case "strings":
      return "add a list of strings";
    case "reference":
      return `name the ${REFERENCE_WHAT[rule.ref]} (or give its id)`;
    case "references":
      return `list the ${REFERENCE_WHAT[rule.ref]} names (or ids)`;
  }
}
