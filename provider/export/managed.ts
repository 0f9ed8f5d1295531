// The ids a stack already manages, from its outputs (`pulumi stack output --json`): the stack program exports
// businessUnitIds and consumerIds, each a map from the resource's name (its key path joined by "/", e.g.
// `acme/labs`, `acme/labs/web`) to the portal's id. `export --merge` never adds an object whose id is held here,
// even when the file's entry has no adoptId and the portal renamed or moved the object.
import * as fs from "fs";
import type { StackOutputs } from "../program/deploy";
import { portalId } from "../rules/fields";
import { MergeError } from "./merge";

/** The two outputs read, by the program's own names for them. */
const BUSINESS_UNIT_IDS: keyof StackOutputs = "businessUnitIds";
const CONSUMER_IDS: keyof StackOutputs = "consumerIds";

export interface ManagedIds {
  /** The file they were read from, for messages. */
  file: string;
  /** Resource name → business unit id. */
  businessUnits: Map<string, number>;
  /** Resource name → consumer id. */
  consumers: Map<string, number>;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const HOW = "give the output of `pulumi stack output --json --stack <stack>`";

/** The outputs' ids; every problem at once, one line each, as a MergeError. */
export function readStackOutputs(text: string, file: string): ManagedIds {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (err) {
    throw new MergeError(`${file}: not JSON (${(err as Error).message.split("\n")[0]}); ${HOW}`);
  }
  if (!isObject(json)) throw new MergeError(`${file}: must be a JSON object; ${HOW}`);
  if (Object.keys(json).length && json[BUSINESS_UNIT_IDS] === undefined && json[CONSUMER_IDS] === undefined) {
    throw new MergeError(`${file}: has neither ${BUSINESS_UNIT_IDS} nor ${CONSUMER_IDS}, so it is no output of this stack program; ${HOW}`);
  }
  const problems: string[] = [];
  const ids = (key: string): Map<string, number> => {
    const map = new Map<string, number>();
    const v = json[key];
    if (v === undefined) return map; // a stack that never ran up has no outputs: it manages nothing
    if (!isObject(v)) {
      problems.push(`${file}: ${key} must be a map from resource name to id, got ${JSON.stringify(v)}`);
      return map;
    }
    for (const [name, id] of Object.entries(v)) {
      const n = typeof id === "number" ? portalId(id) : undefined;
      if (n === undefined) problems.push(`${file}: ${key}[${JSON.stringify(name)}]: ${JSON.stringify(id)} is not a portal id; ${HOW}`);
      else map.set(name, n);
    }
    return map;
  };
  const managed = { file, businessUnits: ids(BUSINESS_UNIT_IDS), consumers: ids(CONSUMER_IDS) };
  if (problems.length) {
    throw new MergeError(
      [`the stack outputs have ${problems.length} problem${problems.length === 1 ? "" : "s"}; nothing was merged:`, ...problems].join("\n"),
    );
  }
  return managed;
}

/** The outputs file `file` read and checked. */
export function loadStackOutputs(file: string): ManagedIds {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new MergeError(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return readStackOutputs(text, file);
}
