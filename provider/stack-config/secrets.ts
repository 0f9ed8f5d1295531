// The secret keys of the `backup-portal:` namespace that the blocks name, each with where it is named: node
// passwords (passwordSecret), registry users' passwords (passwordSecretKey, or the default key of the username)
// and the billing receiver's shared secret (secretKey).
import { defaultPasswordKey } from "../registry/from-config";

export interface NamedSecret {
  key: string;
  /** The key path that names it, e.g. tenants.acme.consumers.web.node.passwordSecret. */
  path: string;
}

const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** In the order of the config (business units depth first); what is not a map is skipped (its rules name it). */
export function namedSecrets(tenants: unknown, registry: unknown, billingReceiver: unknown): NamedSecret[] {
  const out: NamedSecret[] = [];
  const add = (key: unknown, path: string) => {
    if (typeof key === "string" && key.trim() && !key.includes(":")) out.push({ key, path });
  };
  const unitsOf = (units: unknown, path: string) =>
    isMap(units) ? Object.entries(units).map(([k, bu]) => ({ bu, path: `${path}.${k}` })) : [];
  // A stack instead of recursion: the nesting is the config's, not the call stack's.
  const todo = unitsOf(tenants, "tenants").reverse();
  while (todo.length) {
    const { bu, path } = todo.pop()!;
    if (!isMap(bu)) continue;
    if (isMap(bu.consumers)) {
      for (const [k, c] of Object.entries(bu.consumers)) {
        if (isMap(c) && isMap(c.node)) add(c.node.passwordSecret, `${path}.consumers.${k}.node.passwordSecret`);
      }
    }
    todo.push(...unitsOf(bu.businessUnits, `${path}.businessUnits`).reverse());
  }
  if (isMap(registry) && Array.isArray(registry.users)) {
    registry.users.forEach((u, i) => {
      if (!isMap(u)) return;
      if (u.passwordSecretKey !== undefined) add(u.passwordSecretKey, `registry.users[${i}].passwordSecretKey`);
      else if (typeof u.username === "string") add(defaultPasswordKey(u.username), `registry.users[${i}].username`);
    });
  }
  if (isMap(billingReceiver)) add(billingReceiver.secretKey, "billingReceiver.secretKey");
  return out;
}
