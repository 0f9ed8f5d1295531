// Structural validation of `backup-portal:tenants`: every problem, with its
// path and the fix, before anything talks to the portal.
import { tsmNameProblem } from "../portal/nodes";
import { fieldProblem, FieldRule, FieldTable, requiredHint, show } from "../rules/fields";
import {
  BUSINESS_UNIT_CHILDREN,
  CONSUMER_CHILDREN,
  KEY_PATTERN,
  STACK_BUSINESS_UNIT_FIELDS,
  STACK_CONSUMER_FIELDS,
  STACK_NODE_FIELDS,
} from "./fields";
import { BusinessUnitConfig, ConsumerConfig, NodeConfig, Problem, TenantsConfig } from "./model";

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

/** The choice closest to `word` when near enough to be its typo (the did-you-mean of every config message). */
export function closest(word: string, choices: string[]): string | undefined {
  const dist = (a: string, b: string) => {
    // Row i starts with i; the loops fill the rest of each row in order.
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++) {
        d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      }
    return d[a.length][b.length];
  };
  const best = choices.map((c) => ({ c, d: dist(word.toLowerCase(), c.toLowerCase()) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= Math.max(2, Math.floor(word.length / 3)) ? best.c : undefined;
}

function checkFields(obj: Record<string, unknown>, rules: Record<string, Rule>, path: string, add: Add): void {
  for (const [k, v] of Object.entries(obj)) {
    if (!has(rules, k)) {
      const guess = closest(k, Object.keys(rules));
      add(`${path}.${k}`, `unknown key${guess ? `; did you mean "${guess}"?` : `; known keys: ${Object.keys(rules).join(", ")}`}`);
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
        "a password in plain stack config ends up in the repository; store it with `pulumi config set --secret <key> <password>` and name that key in passwordSecret",
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
const PROXY_RULES: Record<string, Rule> = { agent: fromTable(PROXY_SIDE), target: fromTable(PROXY_SIDE) };

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
        `no secret config key "${cfg.passwordSecret}" (one set without --secret does not count: it sits in plain ` +
          `text in the stack file); set it with \`pulumi config set --secret ${cfg.passwordSecret} <password>\``,
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
  return problems;
}

/** Walks every business unit with its key path (for the later phases). */
export function* walkBusinessUnits(
  tenants: TenantsConfig,
  path = "tenants",
): Generator<{ path: string; key: string; bu: BusinessUnitConfig }> {
  for (const [key, bu] of Object.entries(tenants)) {
    yield { path: `${path}.${key}`, key, bu };
    if (bu.businessUnits) yield* walkBusinessUnits(bu.businessUnits, `${path}.${key}.businessUnits`);
  }
}
