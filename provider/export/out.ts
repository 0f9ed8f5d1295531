// What export writes, before it is YAML or JSON: maps and lists of values, with comments at their place. A
// commented entry is a value written out as a comment (the rules refuse it, or stack config cannot express it).

export type OutValue = string | number | boolean | OutMap | OutValue[];

export interface OutEntry {
  key: string;
  value: OutValue;
  /** Comment lines above the entry. */
  before?: string[];
}

export interface OutComment {
  /** Comment lines where an entry would be (a value left out, and why). */
  comment: string[];
}

export class OutMap {
  readonly items: Array<OutEntry | OutComment> = [];

  set(key: string, value: OutValue, before?: string[]): this {
    this.items.push(before?.length ? { key, value, before } : { key, value });
    return this;
  }

  comment(...lines: string[]): this {
    if (lines.length) this.items.push({ comment: lines });
    return this;
  }

  get entries(): OutEntry[] {
    return this.items.filter((i): i is OutEntry => "key" in i);
  }

  get(key: string): OutValue | undefined {
    return this.entries.find((e) => e.key === key)?.value;
  }
}

/** The plain value (comments and commented entries left out), as JSON and the stack program see it. */
export function plain(v: OutValue): unknown {
  if (v instanceof OutMap) return Object.fromEntries(v.entries.map((e) => [e.key, plain(e.value)]));
  if (Array.isArray(v)) return v.map(plain);
  return v;
}
