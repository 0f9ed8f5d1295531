// Structural validation of `backup-portal:tenants`: every problem, with its
// path and the fix, before anything talks to the portal.
import { tsmNameProblem } from "../portal/nodes";
import { unknownKeyHint } from "../rules/suggest";
import { fieldProblem, FieldRule, FieldTable, requiredHint, show } from "../rules/fields";
import {
  BUSINESS_UNIT_CHILDREN,
  CONSUMER_CHILDREN,
  KEY_PATTERN,
  PROXY_ADOPT_DOC,
  STACK_BUSINESS_UNIT_FIELDS,
  STACK_CONSUMER_FIELDS,
  STACK_NODE_FIELDS,
} from "./fields";
import { BusinessUnitConfig, ConsumerConfig, NodeConfig, Problem } from "./model";
import { NOT_A_SECRET_HERE, qualified, setSecretHint } from "../rules/stack-config";

type Add = (path: string, message: string) => void;
type Rule = (value: unknown, path: string, add: Add) => void;

const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
/** Own keys only: a key named `toString` or `__proto__` is data, never something every object inherits. */
const has = (obj: object, key: string) => Object.prototype.hasOwnProperty.call(obj, key);

/** A rule of the field tables (provider/tenants/fields.ts) as a check of one stack-config value. */
function fromTable(r: FieldRule): Rule {
  return (v, path, add) => {
    if (v === undefined) {
      if (r.required) add(path, `is required; ${requiredHint(r)}`);
      return;
    }
    const problem = fieldProblem(v, r);
    if (problem) add(path, problem);
  };
}

const rulesOf = (table: FieldTable): Record<string, Rule> => Object.fromEntries(Object.entries(table).map(([k, r]) => [k, fromTable(r)]));

function checkKey(key: string, path: string, add: Add): void {
  if (!KEY_PATTERN.test(key))
    add(
      path,
      `key ${show(key)} must start with a letter or digit and hold only letters, digits, "-", "_" and "." (at most 63); it becomes the resource's name`,
    );
}

function checkFields(obj: Record<string, unknown>, rules: Record<string, Rule>, path: string, add: Add): void {
  for (const [k, v] of Object.entries(obj)) {
    if (!has(rules, k)) {
      add(`${path}.${k}`, `unknown key; ${unknownKeyHint(k, Object.keys(rules))}`);
    } else rules[k](v, `${path}.${k}`, add);
  }
  for (const [k, rule] of Object.entries(rules)) if (!has(obj, k)) rule(undefined, `${path}.${k}`, add);
}

const none: Rule = () => undefined;

const NODE_RULES: Record<string, Rule> = {
  ...rulesOf(STACK_NODE_FIELDS),
  tsmPassword: (v, path, add) => {
    if (v !== undefined) {
      add(
        path,
        `a password in plain stack config ends up in the repository; store it with ${setSecretHint("backup-portal:<key>")} and name that key in passwordSecret`,
      );
    }
  },
};

const CONSUMER_RULES: Record<string, Rule> = {
  ...rulesOf(STACK_CONSUMER_FIELDS),
  ...Object.fromEntries(CONSUMER_CHILDREN.map((k) => [k, none])),
};

const BU_RULES: Record<string, Rule> = {
  ...rulesOf(STACK_BUSINESS_UNIT_FIELDS),
  ...Object.fromEntries(BUSINESS_UNIT_CHILDREN.map((k) => [k, none])),
};

const PROXY_SIDE: FieldRule = { kind: "string", text: "line", maxLength: 63, nonBlank: true, required: true, doc: "a consumer key" };
const PROXY_RULES: Record<string, Rule> = {
  agent: fromTable(PROXY_SIDE),
  target: fromTable(PROXY_SIDE),
  adopt: fromTable({ kind: "boolean", doc: PROXY_ADOPT_DOC }),
};

export interface StructureContext {
  /** Whether a secret config key is set (for passwordSecret). */
  hasSecret(key: string): boolean;
}

/** Validates the whole tenants block; returns every problem found. */
export function validateTenants(raw: unknown, ctx: StructureContext, root = "tenants"): Problem[] {
  const problems: Problem[] = [];
  const add: Add = (path, message) => problems.push({ path, message });
  const tsmNames = new Map<string, string>();

  /**
   * An entry's aliases among its siblings: none may be a current key, and no two entries may claim the same one
   * (both would take over the one old resource). `claimed` maps each alias of these siblings to its entry's key.
   */
  function aliases(list: unknown, siblings: Record<string, unknown>, path: string, key: string, claimed: Map<string, string>): void {
    if (!Array.isArray(list)) return;
    for (const a of list) {
      if (typeof a !== "string" || !KEY_PATTERN.test(a)) continue;
      if (has(siblings, a)) add(`${path}.aliases`, `"${a}" is also a current key here; an alias names a key that no longer exists`);
      const other = claimed.get(a);
      if (other !== undefined && other !== key) {
        add(`${path}.aliases`, `"${a}" is also an alias of "${other}"; one earlier key can become only one entry`);
      }
      claimed.set(a, other ?? key);
    }
  }

  function node(n: unknown, path: string): void {
    if (!isMap(n)) return add(path, `must be a map with operatingSystem, type, domain, cpuCount, ...; got ${show(n)}`);
    checkFields(n, NODE_RULES, path, add);
    const cfg = n as Partial<NodeConfig>;
    if (typeof cfg.tsmName === "string" && !tsmNameProblem(cfg.tsmName)) {
      const upper = cfg.tsmName.toUpperCase();
      const other = tsmNames.get(upper);
      if (other) add(`${path}.tsmName`, `"${cfg.tsmName}" is also the tsmName of ${other}; node names are unique on the backup server`);
      else tsmNames.set(upper, `${path}`);
    }
    if (typeof cfg.passwordSecret === "string" && cfg.passwordSecret.includes(":")) {
      add(`${path}.passwordSecret`, `"${cfg.passwordSecret}" must be a key without a namespace: it is read as backup-portal:<key>`);
    } else if (typeof cfg.passwordSecret === "string" && cfg.passwordSecret.trim() && !ctx.hasSecret(cfg.passwordSecret)) {
      add(
        `${path}.passwordSecret`,
        `no secret config key ${qualified(cfg.passwordSecret)} (${NOT_A_SECRET_HERE}); set it with ${setSecretHint(cfg.passwordSecret)}`,
      );
    }
  }

  function consumers(map: unknown, path: string): void {
    if (map === undefined) return;
    if (!isMap(map)) return add(path, `must be a map from consumer key to consumer, got ${show(map)}`);
    const claimed = new Map<string, string>();
    for (const [key, c] of Object.entries(map)) {
      const p = `${path}.${key}`;
      checkKey(key, p, add);
      if (!isMap(c)) {
        add(p, `must be a map (name, note, node, ...), got ${show(c)}; write \`${key}: {}\` for a consumer with defaults`);
        continue;
      }
      checkFields(c, CONSUMER_RULES, p, add);
      aliases(c.aliases, map, p, key, claimed);
      if (c.node !== undefined) node(c.node, `${p}.node`);
    }
  }

  function proxies(list: unknown, consumerMap: unknown, path: string): void {
    if (list === undefined) return;
    if (!Array.isArray(list)) return add(path, `must be a list of {agent, target}, got ${show(list)}`);
    const known = isMap(consumerMap) ? consumerMap : {};
    const seen = new Set<string>();
    list.forEach((item, i) => {
      const p = `${path}[${i}]`;
      if (!isMap(item)) return add(p, `must be a map {agent: <consumer key>, target: <consumer key>}, got ${show(item)}`);
      checkFields(item, PROXY_RULES, p, add);
      for (const side of ["agent", "target"] as const) {
        const key = item[side];
        if (typeof key !== "string") continue;
        // A consumer written as null or a scalar exists (its own problem is named): it has no node, it is not unknown.
        if (!has(known, key))
          add(`${p}.${side}`, `no consumer "${key}" in this business unit; known: ${Object.keys(known).join(", ") || "none"}`);
        else if (!isMap(known[key]) || !(known[key] as ConsumerConfig).node)
          add(`${p}.${side}`, `consumer "${key}" has no node; a proxy relation joins two nodes`);
      }
      if (typeof item.agent === "string" && item.agent === item.target)
        add(p, "agent and target are the same consumer; a node cannot be its own proxy");
      const pair = `${item.agent}>${item.target}`;
      if (seen.has(pair)) add(p, `the relation ${item.agent} → ${item.target} is listed twice`);
      seen.add(pair);
    });
  }

  function businessUnits(map: unknown, path: string): void {
    if (!isMap(map)) {
      return add(
        path,
        `must be a map from key to business unit, got ${show(map)}; keys give resources stable names, so lists are not used`,
      );
    }
    const claimed = new Map<string, string>();
    for (const [key, bu] of Object.entries(map)) {
      const p = `${path}.${key}`;
      checkKey(key, p, add);
      if (!isMap(bu)) {
        add(p, `must be a map with registrationNumber, timeZone, ...; got ${show(bu)}`);
        continue;
      }
      checkFields(bu, BU_RULES, p, add);
      aliases(bu.aliases, map, p, key, claimed);
      consumers(bu.consumers, `${p}.consumers`);
      proxies(bu.proxies, bu.consumers, `${p}.proxies`);
      if (bu.businessUnits !== undefined) businessUnits(bu.businessUnits, `${p}.businessUnits`);
    }
  }

  businessUnits(raw, root);
  problems.push(...repeatedAdoptIdProblems(raw, root));
  return problems;
}

/**
 * Entries that adopt the same portal object: each at its adoptId, naming the others. Two resources for one object
 * fight on every up (each writes its own values), and removing the "duplicate" later deletes the real object.
 * Business units and consumers are counted apart, as their ids are. Walks without recursion: export --merge runs
 * this on a file no other check has bounded yet.
 */
export function repeatedAdoptIdProblems(raw: unknown, root = "tenants"): Problem[] {
  const adopted = { "business unit": new Map<number, string[]>(), consumer: new Map<number, string[]>() };
  const note = (kind: keyof typeof adopted, entry: unknown, path: string) => {
    if (!isMap(entry) || !has(entry, "adoptId")) return;
    const rule = kind === "consumer" ? STACK_CONSUMER_FIELDS.adoptId : STACK_BUSINESS_UNIT_FIELDS.adoptId;
    if (fieldProblem(entry.adoptId, rule)) return; // its own problem is named
    const id = entry.adoptId as number;
    adopted[kind].set(id, [...(adopted[kind].get(id) ?? []), `${path}.adoptId`]);
  };
  const todo: Array<[unknown, string]> = [[raw, root]];
  while (todo.length) {
    const [map, path] = todo.pop()!;
    if (!isMap(map)) continue;
    const children: Array<[unknown, string]> = [];
    for (const [key, bu] of Object.entries(map)) {
      if (!isMap(bu)) continue;
      const p = `${path}.${key}`;
      note("business unit", bu, p);
      if (isMap(bu.consumers)) for (const [ck, c] of Object.entries(bu.consumers)) note("consumer", c, `${p}.consumers.${ck}`);
      children.push([bu.businessUnits, `${p}.businessUnits`]);
    }
    todo.push(...children.reverse());
  }
  const problems: Problem[] = [];
  for (const [kind, ids] of Object.entries(adopted)) {
    for (const [id, paths] of ids) {
      if (paths.length < 2) continue;
      for (const path of paths) {
        const others = paths.filter((p) => p !== path);
        problems.push({
          path,
          message:
            `${kind} ${id} is also adopted at ${others.join(", ")}: two resources for one portal object fight on every up, ` +
            `and removing either deletes the object; keep adoptId ${id} on one entry only`,
        });
      }
    }
  }
  return problems;
}

/** Walks every business unit with its key path (for the later phases). */
export function* walkBusinessUnits<T extends { businessUnits?: Record<string, T> } = BusinessUnitConfig>(
  tenants: Record<string, T>,
  path = "tenants",
): Generator<{ path: string; key: string; bu: T }> {
  for (const [key, bu] of Object.entries(tenants)) {
    yield { path: `${path}.${key}`, key, bu };
    if (bu.businessUnits) yield* walkBusinessUnits(bu.businessUnits, `${path}.${key}.businessUnits`);
  }
}
