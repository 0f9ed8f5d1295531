// Structural validation of `backup-portal:tenants`: every problem, with its
// path and the fix, before anything talks to the portal.
import { tsmNameProblem } from "../../provider/portal/nodes";
import { BusinessUnitConfig, ConsumerConfig, NodeConfig, Problem, TenantsConfig } from "./model";

type Add = (path: string, message: string) => void;
type Rule = (value: unknown, path: string, add: Add) => void;

const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const show = (v: unknown) => (Array.isArray(v) ? "a list" : v === null ? "null" : typeof v === "object" ? "a map" : JSON.stringify(v));

function str(opts: { required?: boolean; max?: number } = {}): Rule {
  return (v, path, add) => {
    if (v === undefined) {
      if (opts.required) add(path, "is required; add it as a string");
      return;
    }
    if (typeof v !== "string" || v.trim() === "") add(path, `must be a non-empty string, got ${show(v)}`);
    else if (opts.max && v.length > opts.max) add(path, `is ${v.length} characters long; use at most ${opts.max}`);
  };
}

function int(opts: { required?: boolean; min: number; max?: number }): Rule {
  return (v, path, add) => {
    if (v === undefined) {
      if (opts.required) add(path, `is required; add an integer ≥ ${opts.min}`);
      return;
    }
    const ok = typeof v === "number" && Number.isInteger(v) && v >= opts.min && (opts.max === undefined || v <= opts.max);
    if (!ok) add(path, `must be an integer ${opts.max === undefined ? `≥ ${opts.min}` : `from ${opts.min} to ${opts.max}`}, got ${show(v)}`);
  };
}

const id = int({ min: 1 });

const nonNegative: Rule = (v, path, add) => {
  if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v) || v < 0)) add(path, `must be a number ≥ 0, got ${show(v)}`);
};

const bool: Rule = (v, path, add) => {
  if (v !== undefined && typeof v !== "boolean") add(path, `must be true or false, got ${show(v)}`);
};

const strList: Rule = (v, path, add) => {
  if (v !== undefined && (!Array.isArray(v) || v.some((x) => typeof x !== "string"))) add(path, `must be a list of strings, got ${show(v)}`);
};

function ref(what: string, required = true): Rule {
  return (v, path, add) => {
    if (v === undefined) {
      if (required) add(path, `is required; name the ${what} (or give its id)`);
      return;
    }
    if (!(typeof v === "string" && v.trim() !== "") && !(typeof v === "number" && Number.isInteger(v) && v > 0)) {
      add(path, `must name the ${what} or give its id, got ${show(v)}`);
    }
  };
}

/** Keys become Pulumi resource names: keep them plain so names stay stable and readable. */
export const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

function checkKey(key: string, path: string, add: Add): void {
  if (!KEY_PATTERN.test(key)) {
    add(path, `key "${key}" must start with a letter or digit and hold only letters, digits, "-", "_" and "." (at most 63); it becomes the resource's name`);
  }
}

function closest(word: string, choices: string[]): string | undefined {
  const dist = (a: string, b: string) => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    return d[a.length][b.length];
  };
  const best = choices.map((c) => ({ c, d: dist(word.toLowerCase(), c.toLowerCase()) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= Math.max(2, Math.floor(word.length / 3)) ? best.c : undefined;
}

function checkFields(obj: Record<string, unknown>, rules: Record<string, Rule>, path: string, add: Add): void {
  for (const [k, v] of Object.entries(obj)) {
    const rule = rules[k];
    if (!rule) {
      const guess = closest(k, Object.keys(rules));
      add(`${path}.${k}`, `unknown key${guess ? `; did you mean "${guess}"?` : `; known keys: ${Object.keys(rules).join(", ")}`}`);
    } else rule(v, `${path}.${k}`, add);
  }
  for (const [k, rule] of Object.entries(rules)) if (!(k in obj)) rule(undefined, `${path}.${k}`, add);
}

const none: Rule = () => undefined;

const NODE_RULES: Record<string, Rule> = {
  operatingSystem: ref("operating system"),
  type: ref("node type"),
  domain: ref("policy domain"),
  clientOptionSet: ref("client option set", false),
  contact: str({ max: 255 }),
  cpuCount: int({ required: true, min: 1, max: 4096 }),
  tsmName: (v, path, add) => {
    if (v === undefined) return;
    if (typeof v !== "string") return add(path, `must be a string, got ${show(v)}`);
    const problem = tsmNameProblem(v);
    if (problem) add(path, `"${v}" ${problem}`);
  },
  passwordSecret: str({ max: 200 }),
  adopt: bool,
  tsmPassword: (v, path, add) => {
    if (v !== undefined) {
      add(path, "a password in plain stack config ends up in the repository; store it with `pulumi config set --secret <key> <password>` and name that key in passwordSecret");
    }
  },
};

const CONSUMER_RULES: Record<string, Rule> = {
  name: str({ max: 200 }), note: str({ max: 4000 }), tags: strList, limitHighStorage: nonNegative, allowNoActivity: bool,
  deleteAssociations: bool, deletionComment: str({ max: 1000 }), adoptId: id, aliases: strList, node: none,
};

const BU_RULES: Record<string, Rule> = {
  name: str({ max: 200 }), registrationNumber: str({ required: true, max: 100 }), timeZone: ref("time zone (e.g. \"W. Europe Standard Time\")"),
  note: str({ max: 4000 }), invoiceDay: int({ min: 1, max: 28 }), storageLimit: nonNegative, transferLimit: nonNegative,
  nodeLimit: nonNegative, passwordExpirationDays: int({ min: 0, max: 3650 }), supportResponsible: bool, reportRemotely: bool,
  useScheduleBindings: bool, tags: strList, adoptId: id, aliases: strList, protect: bool,
  businessUnits: none, consumers: none, proxies: none,
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

  function aliases(list: unknown, siblings: Record<string, unknown>, path: string): void {
    if (!Array.isArray(list)) return;
    for (const a of list) {
      if (typeof a !== "string") continue;
      checkKey(a, `${path}.aliases`, add);
      if (a in siblings) add(`${path}.aliases`, `"${a}" is also a current key here; an alias names a key that no longer exists`);
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
      add(`${path}.passwordSecret`, `no secret config key "${cfg.passwordSecret}" (one set without --secret does not count: it sits in plain ` +
        `text in the stack file); set it with \`pulumi config set --secret ${cfg.passwordSecret} <password>\``);
    }
  }

  function consumers(map: unknown, path: string): void {
    if (map === undefined) return;
    if (!isMap(map)) return add(path, `must be a map from consumer key to consumer, got ${show(map)}`);
    for (const [key, c] of Object.entries(map)) {
      const p = `${path}.${key}`;
      checkKey(key, p, add);
      if (!isMap(c)) {
        add(p, `must be a map (name, note, node, ...), got ${show(c)}; write \`${key}: {}\` for a consumer with defaults`);
        continue;
      }
      checkFields(c, CONSUMER_RULES, p, add);
      aliases(c.aliases, map, p);
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
      checkFields(item, { agent: str({ required: true }), target: str({ required: true }) }, p, add);
      for (const side of ["agent", "target"] as const) {
        const key = item[side];
        if (typeof key !== "string") continue;
        const c = known[key] as ConsumerConfig | undefined;
        if (!c) add(`${p}.${side}`, `no consumer "${key}" in this business unit; known: ${Object.keys(known).join(", ") || "none"}`);
        else if (!isMap(c) || !c.node) add(`${p}.${side}`, `consumer "${key}" has no node; a proxy relation joins two nodes`);
      }
      if (typeof item.agent === "string" && item.agent === item.target) add(p, "agent and target are the same consumer; a node cannot be its own proxy");
      const pair = `${item.agent}>${item.target}`;
      if (seen.has(pair)) add(p, `the relation ${item.agent} → ${item.target} is listed twice`);
      seen.add(pair);
    });
  }

  function businessUnits(map: unknown, path: string): void {
    if (!isMap(map)) {
      return add(path, `must be a map from key to business unit, got ${show(map)}; keys give resources stable names, so lists are not used`);
    }
    for (const [key, bu] of Object.entries(map)) {
      const p = `${path}.${key}`;
      checkKey(key, p, add);
      if (!isMap(bu)) {
        add(p, `must be a map with registrationNumber, timeZone, ...; got ${show(bu)}`);
        continue;
      }
      checkFields(bu, BU_RULES, p, add);
      aliases(bu.aliases, map, p);
      consumers(bu.consumers, `${p}.consumers`);
      proxies(bu.proxies, bu.consumers, `${p}.proxies`);
      if (bu.businessUnits !== undefined) businessUnits(bu.businessUnits, `${p}.businessUnits`);
    }
  }

  businessUnits(raw, root);
  return problems;
}

/** Walks every business unit with its key path (for the later phases). */
export function* walkBusinessUnits(tenants: TenantsConfig, path = "tenants"): Generator<{ path: string; key: string; bu: BusinessUnitConfig }> {
  for (const [key, bu] of Object.entries(tenants)) {
    yield { path: `${path}.${key}`, key, bu };
    if (bu.businessUnits) yield* walkBusinessUnits(bu.businessUnits, `${path}.${key}.businessUnits`);
  }
}
