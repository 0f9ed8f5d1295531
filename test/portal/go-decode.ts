// Whether a JSON answer decodes into a Go struct the way Go's encoding/json does it: keys matched
// case-insensitively, unknown keys ignored, null accepted for every field, but a value of the
// wrong JSON type is an error ("cannot unmarshal string into Go struct field ... of type int"),
// and time.Time needs an RFC 3339 string. Types are written as in test/portal/go-client-flow.json:
// "string", "int", "bool", "time", an object of fields, or a one-element array of the item type.

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The problems Go would report decoding `value` into `type`; empty when it decodes. */
export function goDecodeProblems(value: unknown, type: unknown, at = "$"): string[] {
  if (value === null) return [];
  if (type === "string") return typeof value === "string" ? [] : [`${at}: ${JSON.stringify(value)} is not a string`];
  if (type === "bool") return typeof value === "boolean" ? [] : [`${at}: ${JSON.stringify(value)} is not a bool`];
  if (type === "int") return typeof value === "number" && Number.isInteger(value) ? [] : [`${at}: ${JSON.stringify(value)} is not an int`];
  if (type === "time")
    return typeof value === "string" && RFC3339.test(value) ? [] : [`${at}: ${JSON.stringify(value)} is not an RFC 3339 time`];
  if (Array.isArray(type)) {
    if (!Array.isArray(value)) return [`${at}: ${JSON.stringify(value)?.slice(0, 60)} is not an array`];
    return value.flatMap((v, i) => goDecodeProblems(v, type[0], `${at}[${i}]`));
  }
  if (type && typeof type === "object") {
    if (typeof value !== "object" || Array.isArray(value)) return [`${at}: ${JSON.stringify(value)?.slice(0, 60)} is not an object`];
    const fields = new Map(Object.entries(type).map(([k, t]) => [k.toLowerCase(), t]));
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
      fields.has(k.toLowerCase()) ? goDecodeProblems(v, fields.get(k.toLowerCase()), `${at}.${k}`) : [],
    );
  }
  throw new Error(`unknown Go type ${JSON.stringify(type)} at ${at}`);
}
