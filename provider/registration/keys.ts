// The custom metadata keys that tell an instance how to register itself, their
// defaults, and the backup node name (tsmName) derived from the instance.
// Pure functions: no network, no files.
import { createHash } from "crypto";
import * as os from "os";
import { tsmNameProblem } from "../portal/nodes";
import { InstanceMetadata } from "../metadata/types";
import { MAX_INTEGER, portalId } from "../rules/fields";

/** The custom metadata keys read by `backup-portal register`. */
export const META_KEYS = {
  businessUnit: "backup_bunit",
  operatingSystem: "backup_os",
  nodeType: "backup_node_type",
  domain: "backup_domain",
  clientOptionSet: "backup_option_set",
  contact: "backup_contact",
  cpuCount: "backup_cpu_count",
  tsmName: "backup_tsm_name",
} as const;

const KNOWN_KEYS: ReadonlySet<string> = new Set(Object.values(META_KEYS));

/** Values used when a key is absent (names as the portal lists them). */
export const REGISTRATION_DEFAULTS = {
  operatingSystem: "Linux",
  nodeType: "File server",
  domain: "STANDARD",
  clientOptionSet: "DEDUP_AND_COMPRESS",
} as const;

/** The consumer tag that records which instance a consumer belongs to. */
export const INSTANCE_TAG_PREFIX = "instance-uuid:";

export function instanceTag(uuid: string): string {
  return `${INSTANCE_TAG_PREFIX}${uuid.trim().toLowerCase()}`;
}

/** A value from metadata or a default; `explicit` when the key was set. */
export interface Requested<T> {
  value: T;
  key: string;
  explicit: boolean;
}

/** What the instance's metadata asks for, validated locally (names are resolved against the portal later). */
export interface RegistrationSpec {
  uuid: string;
  /** The consumer's name on the portal: the instance name (else hostname, else uuid). */
  consumerName: string;
  businessUnitId: number;
  operatingSystem: Requested<string>;
  nodeType: Requested<string>;
  domain: Requested<string>;
  clientOptionSet: Requested<string>;
  contact: Requested<string | undefined>;
  cpuCount: Requested<number>;
  /** Upper-case; derived from the name unless `backup_tsm_name` is set. */
  tsmName: Requested<string>;
  /** Unknown `backup_*` keys (likely typos), for a warning. */
  unknownKeys: string[];
}

/** A problem with one metadata key: what is wrong and how to fix it. */
export interface KeyProblem {
  key: string;
  message: string;
}

/**
 * Added to a hint that asks to change the instance's metadata when it was read from the config drive: the
 * drive keeps the values the instance was launched with, so a change shows only on the metadata service.
 */
export const CONFIG_DRIVE_NOTE =
  "this instance's metadata was read from its config drive, which keeps the values the instance was launched with: " +
  "after changing a key with `openstack server set --property`, run again with --no-config-drive (and without --config-drive) " +
  "so that the metadata service, which has the current values, is read";

function setHint(key: string, example: string): string {
  return `set it with \`openstack server set --property ${key}=${example} <instance>\` (or in the instance's metadata in your Pulumi program)`;
}

/** What is wrong with `backup_bunit`'s value (absent, blank, or not a portal id), with the fix; undefined when fine. */
export function businessUnitProblem(value: string | undefined): string | undefined {
  const key = META_KEYS.businessUnit;
  if (value === undefined || value.trim() === "")
    return `${key} is missing: it names the business unit to register in, by id; ${setHint(key, "<business unit id>")}`;
  if (portalId(value) === undefined)
    return `${key} must be a business unit id (a positive integer up to ${MAX_INTEGER}), got ${JSON.stringify(value)}; names are not accepted because they are not unique; ${setHint(key, "<business unit id>")}`;
  return undefined;
}

/** The 6 upper-case hex digits that make a derived name unique: the uuid's first ones (a hash for a non-canonical uuid). */
export function uuidSuffix(uuid: string): string {
  const text = uuid.trim().toLowerCase();
  const hex = /^[0-9a-f]{8}-?[0-9a-f]{4}/.test(text) ? text.replace(/-/g, "") : createHash("sha256").update(text).digest("hex");
  return hex.slice(0, 6).toUpperCase();
}

/**
 * A valid node name from the instance's name: upper-case, every character the
 * backup server does not allow replaced by `-` (runs collapsed, none at the
 * ends), cut so that `-` and the uuid suffix fit in 64 characters.
 * `deriveTsmName("web01", "1a2b3c4d-...")` is `WEB01-1A2B3C`.
 */
export function deriveTsmName(name: string, uuid: string): string {
  const suffix = uuidSuffix(uuid);
  const clean = (s: string): string =>
    s
      .replace(/[^A-Z0-9_.\-+&]/g, "-")
      .replace(/-{2,}/g, "-")
      .replace(/^[-.]+|[-.]+$/g, "");
  let base = clean(name.toUpperCase());
  base = clean(base.slice(0, 64 - 1 - suffix.length));
  return `${base || "NODE"}-${suffix}`;
}

/** The name the consumer gets: the instance name, else the hostname's first label, else the uuid. */
export function consumerNameFor(md: Pick<InstanceMetadata, "name" | "hostname" | "uuid">): string {
  const name = md.name.trim() || md.hostname.trim().split(".")[0] || md.uuid;
  return name.slice(0, 200);
}

export interface ParseOptions {
  /** CPU count when `backup_cpu_count` is absent; default os.cpus().length. */
  cpuCount?: () => number;
}

/**
 * Reads the registration keys from the instance's metadata. Answers the spec
 * and every problem found (all keys are checked, not only the first).
 */
export function parseRegistrationMetadata(
  md: InstanceMetadata,
  opts: ParseOptions = {},
): { spec?: RegistrationSpec; problems: KeyProblem[] } {
  const meta = md.meta ?? {};
  const problems: KeyProblem[] = [];
  const get = (key: string): string | undefined => {
    const v = meta[key];
    return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
  };
  const named = (key: string, fallback: string): Requested<string> => {
    const v = get(key);
    return { key, value: v ?? fallback, explicit: v !== undefined };
  };

  const bunit = get(META_KEYS.businessUnit);
  const bunitProblem = businessUnitProblem(bunit);
  if (bunitProblem) problems.push({ key: META_KEYS.businessUnit, message: bunitProblem });
  const businessUnitId = portalId(bunit) ?? 0;

  let cpuCount: Requested<number>;
  const cpu = get(META_KEYS.cpuCount);
  if (cpu === undefined) {
    const n = (opts.cpuCount ?? (() => os.cpus().length))();
    cpuCount = { key: META_KEYS.cpuCount, value: Number.isInteger(n) && n > 0 ? n : 1, explicit: false };
  } else {
    if (!/^\d+$/.test(cpu) || Number(cpu) < 1 || Number(cpu) > 100000) {
      problems.push({
        key: META_KEYS.cpuCount,
        message: `${META_KEYS.cpuCount} must be a whole number from 1 to 100000, got ${JSON.stringify(cpu)}; ${setHint(META_KEYS.cpuCount, "4")} or remove it to use this instance's CPU count`,
      });
    }
    cpuCount = { key: META_KEYS.cpuCount, value: Number(cpu), explicit: true };
  }

  const contact = get(META_KEYS.contact);
  if (contact !== undefined && contact.length > 500) {
    problems.push({
      key: META_KEYS.contact,
      message: `${META_KEYS.contact} is ${contact.length} characters long; at most 500 are allowed`,
    });
  }

  const consumerName = consumerNameFor(md);
  let tsmName: Requested<string>;
  const override = get(META_KEYS.tsmName);
  if (override !== undefined) {
    const problem = tsmNameProblem(override);
    if (problem) {
      problems.push({
        key: META_KEYS.tsmName,
        message: `${META_KEYS.tsmName} ${JSON.stringify(override)} ${problem}; ${setHint(META_KEYS.tsmName, "WEB01")} or remove it to use the derived name ${deriveTsmName(consumerName, md.uuid)}`,
      });
    }
    tsmName = { key: META_KEYS.tsmName, value: override.toUpperCase(), explicit: true };
  } else {
    tsmName = { key: META_KEYS.tsmName, value: deriveTsmName(consumerName, md.uuid), explicit: false };
  }

  const unknownKeys = Object.keys(meta)
    .filter((k) => k.toLowerCase().startsWith("backup_") && !KNOWN_KEYS.has(k))
    .sort();
  if (problems.length) return { problems };
  return {
    problems,
    spec: {
      uuid: md.uuid,
      consumerName,
      businessUnitId,
      operatingSystem: named(META_KEYS.operatingSystem, REGISTRATION_DEFAULTS.operatingSystem),
      nodeType: named(META_KEYS.nodeType, REGISTRATION_DEFAULTS.nodeType),
      domain: named(META_KEYS.domain, REGISTRATION_DEFAULTS.domain),
      clientOptionSet: named(META_KEYS.clientOptionSet, REGISTRATION_DEFAULTS.clientOptionSet),
      contact: { key: META_KEYS.contact, value: contact, explicit: contact !== undefined },
      cpuCount,
      tsmName,
      unknownKeys,
    },
  };
}
