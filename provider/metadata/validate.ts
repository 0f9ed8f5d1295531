// Parsing and validation of meta_data.json. Like cloud-init, a document that
// is not a JSON object with a `uuid` makes the source broken; beyond that the
// fields of spec 001 section 2 are type-checked when present, so a bad value
// is reported here, naming the source, and not deep inside a consumer.
import { InstanceMetadata, MetadataError, MetadataKey, MetadataResult, MetadataSource } from "./types";

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Parses and validates the text of meta_data.json read from `location`
 * (a URL or a file, used in error messages).
 */
export function parseMetadataDocument(text: string, location: string): { metadata: InstanceMetadata; raw: Record<string, unknown> } {
  const fail = (what: string): never => {
    throw new MetadataError("invalid", location, `invalid meta_data.json from ${location}: ${what}`);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (err) {
    // Never the parser's message nor the text: both may quote the file (a symlink to a secret, a wrong file).
    const at = /at position (\d+)/.exec(err instanceof Error ? err.message : "");
    return fail(`not JSON (${Buffer.byteLength(text)} bytes${at ? `; the parser stopped at position ${at[1]}` : ""})`);
  }
  if (!isObject(doc)) return fail(`expected a JSON object, got ${describe(doc)}`);
  const raw = doc;

  if (!("uuid" in raw)) fail(`"uuid" is missing`);
  if (typeof raw.uuid !== "string" || raw.uuid === "") {
    fail(`"uuid" must be a non-empty string, got ${raw.uuid === "" ? "an empty string" : describe(raw.uuid)}`);
  }

  // A field that is absent or null takes its default; otherwise it must have the spec's type.
  const present = (key: string): boolean => raw[key] !== undefined && raw[key] !== null;
  const str = (key: string): string | undefined => {
    if (!present(key)) return undefined;
    if (typeof raw[key] !== "string") fail(`"${key}" must be a string, got ${describe(raw[key])}`);
    return raw[key] as string;
  };
  const arr = (key: string): unknown[] => {
    if (!present(key)) return [];
    if (!Array.isArray(raw[key])) fail(`"${key}" must be an array, got ${describe(raw[key])}`);
    return raw[key] as unknown[];
  };
  // meta: strings, and the scalars cloud-init keeps as given (helpers/openstack.py read_v2 checks no type), as text.
  const meta = (): Record<string, string> => {
    if (!present("meta")) return {};
    const value = raw.meta;
    if (!isObject(value)) return fail(`"meta" must be an object of strings, got ${describe(value)}`);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) {
      const text = metaText(v);
      if (text === undefined) fail(`"meta.${k}" must be a string (or a number or boolean), got ${describe(v)}`);
      out[k] = text as string;
    }
    return out;
  };
  // public_keys: a map (name → key, or name → list of keys), a list of keys, or one string of lines, as cloud-init's
  // normalize_pubkey_data takes them; anything else is refused.
  const publicKeys = (): { byName: Record<string, string>; all: string[] } => {
    if (!present("public_keys")) return { byName: {}, all: [] };
    const value = raw.public_keys;
    const where = (k: string | number): string => (typeof k === "number" ? `"public_keys[${k}]"` : `"public_keys.${k}"`);
    const keyList = (v: unknown, at: string | number): string[] => {
      const list = Array.isArray(v) ? v : [v];
      return list.map((item, i) => {
        if (typeof item !== "string") fail(`${where(at)}${Array.isArray(v) ? `[${i}]` : ""} must be a string, got ${describe(item)}`);
        return item as string;
      });
    };
    if (typeof value === "string") return { byName: {}, all: value.split(/\r?\n/).filter((l) => l !== "") };
    if (Array.isArray(value)) return { byName: {}, all: value.flatMap((v, i) => keyList(v, i)).filter((k) => k !== "") };
    if (!isObject(value)) return fail(`"public_keys" must be an object, a list or a string, got ${describe(value)}`);
    const byName: Record<string, string> = {};
    const all: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      const keys = keyList(v, k);
      byName[k] = keys.join("\n");
      all.push(...keys.filter((key) => key !== ""));
    }
    return { byName, all };
  };

  let launchIndex: number | undefined;
  if (present("launch_index")) {
    if (typeof raw.launch_index !== "number" || !Number.isInteger(raw.launch_index)) {
      fail(`"launch_index" must be an integer, got ${describe(raw.launch_index)}`);
    }
    launchIndex = raw.launch_index as number;
  }

  const keys: MetadataKey[] = arr("keys").map((entry, i) => {
    if (!isObject(entry)) return fail(`"keys[${i}]" must be an object, got ${describe(entry)}`);
    for (const field of ["name", "type", "data"]) {
      if (typeof entry[field] !== "string") fail(`"keys[${i}].${field}" must be a string, got ${describe(entry[field])}`);
    }
    return { name: entry.name as string, type: entry.type as string, data: entry.data as string };
  });

  const pk = publicKeys();
  const metadata: InstanceMetadata = {
    uuid: raw.uuid as string,
    name: str("name") ?? "",
    hostname: str("hostname") ?? "",
    publicKeys: pk.byName,
    sshKeys: pk.all,
    keys,
    devices: arr("devices"),
    dedicatedCpus: arr("dedicated_cpus"),
    meta: meta(),
  };
  if (metadata.meta.dsmode !== undefined) metadata.dsmode = metadata.meta.dsmode;
  if (launchIndex !== undefined) metadata.launchIndex = launchIndex;
  const availabilityZone = str("availability_zone");
  if (availabilityZone !== undefined) metadata.availabilityZone = availabilityZone;
  const projectId = str("project_id");
  if (projectId !== undefined) metadata.projectId = projectId;
  return { metadata, raw };
}

/**
 * A `meta` value as text, the way cloud-init's Python writes it with `str()`: strings as they are, booleans
 * `True`/`False`, whole numbers in decimal, other numbers as their shortest form (`1.5`). Undefined for what has
 * no such form here (null, objects, lists).
 */
export function metaText(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return undefined;
}

/** A reader's result from a parsed document; `disabled` from `meta.dsmode`. */
export function resultOf(
  source: MetadataSource,
  location: string,
  version: string,
  parsed: { metadata: InstanceMetadata; raw: Record<string, unknown> },
  userData: string | null,
  warnings: string[] = [],
): MetadataResult {
  return {
    source,
    location,
    metadata: parsed.metadata,
    raw: parsed.raw,
    userData,
    version,
    disabled: parsed.metadata.dsmode === "disabled",
    warnings,
  };
}
