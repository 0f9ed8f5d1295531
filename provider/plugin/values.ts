// Property values as the engine puts them in a Struct: a secret is the map
// {SIG_KEY: SECRET_SIG, value}; a value not known yet (preview) is the UNKNOWN
// string, which the lifecycles read as it is (dynamic/values.ts isUnknown).
// The lifecycles see plain values; which top-level properties were secret is
// kept aside and put back on the answer, so a secret in stays a secret out.
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export type PropertyMap = Record<string, unknown>;

function isSecretWrapper(v: unknown): v is { value: unknown } {
  return !!v && typeof v === "object" && !Array.isArray(v) && (v as PropertyMap)[SIG_KEY] === SECRET_SIG;
}

/** The value without secret wrappers, and whether it held one anywhere. */
function unwrap(v: unknown): { value: unknown; secret: boolean } {
  if (isSecretWrapper(v)) return { value: unwrap(v.value).value, secret: true };
  if (Array.isArray(v)) {
    const items = v.map(unwrap);
    return { value: items.map((i) => i.value), secret: items.some((i) => i.secret) };
  }
  if (v && typeof v === "object") {
    const out: PropertyMap = {};
    let secret = false;
    for (const [k, x] of Object.entries(v)) {
      const u = unwrap(x);
      out[k] = u.value;
      secret ||= u.secret;
    }
    return { value: out, secret };
  }
  return { value: v, secret: false };
}

/** Plain properties, and the top-level keys that held a secret (a nested secret makes its whole property secret). */
export function fromWire(m: PropertyMap | undefined): { props: PropertyMap; secrets: Set<string> } {
  const props: PropertyMap = {};
  const secrets = new Set<string>();
  for (const [k, v] of Object.entries(m ?? {})) {
    const u = unwrap(v);
    props[k] = u.value;
    if (u.secret) secrets.add(k);
  }
  return { props, secrets };
}

export const secretOf = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, value });

/** The answer's properties with each of `secrets` wrapped again (undefined values left out). */
export function toWire(props: PropertyMap, secrets: Iterable<string>): PropertyMap {
  const keep = new Set(secrets);
  const out: PropertyMap = {};
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined) continue;
    out[k] = keep.has(k) && v !== null ? secretOf(v) : v;
  }
  return out;
}
