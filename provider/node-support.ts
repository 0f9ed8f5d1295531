// Which Node.js versions the package supports, read from one place: package.json `engines.node`. The CLI and the
// stack program print one warning line when they run on another (npm's own EBADENGINE warning is one line among
// many of `npm ci`'s output, and not shown at all when the package is already installed). Not an error: an
// unsupported Node may still run everything; it is only not tested.
import * as fs from "fs";
import * as path from "path";
import { packageRoot } from "./dynamic/specifier";

type Version = [number, number, number];

/** `a` compared with `b`: below 0, 0, above 0. */
function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** `22`, `22.4`, `22.4.1`, `22.x`, `v22`: the numbers given (x and * as absent), or undefined for anything else. */
function partial(text: string): number[] | undefined {
  const m = /^v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/i.exec(text);
  if (!m) return undefined;
  const parts = [m[1], m[2], m[3]].filter((p): p is string => p !== undefined);
  const wild = parts.findIndex((p) => !/^\d+$/.test(p));
  return (wild === -1 ? parts : parts.slice(0, wild)).map(Number);
}

const full = (p: number[]): Version => [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0];

/** The version just above everything `p` names at its precision: 22 -> 23.0.0, 22.4 -> 22.5.0. */
function above(p: number[]): Version {
  if (p.length === 1) return [p[0] + 1, 0, 0];
  if (p.length === 2) return [p[0], p[1] + 1, 0];
  return [p[0], p[1], p[2] + 1];
}

/** One comparator of a range (`^22`, `>=22.1`, `22.x`, `<25`) as a test of a version; undefined when not understood. */
function comparator(text: string): ((v: Version) => boolean) | undefined {
  const m = /^(\^|~|>=|<=|>|<|=)?(.+)$/.exec(text);
  if (!m) return undefined;
  const p = partial(m[2]);
  if (!p || p.length === 0) return undefined;
  const low = full(p);
  switch (m[1]) {
    case "^": {
      // Up to the next change of the first number that is not 0 (22.4.1 -> <23, 0.4 -> <0.5).
      const at = p[0] !== 0 || p.length === 1 ? 1 : p[1] !== 0 || p.length === 2 ? 2 : 3;
      const high = above(p.slice(0, at));
      return (v) => compare(v, low) >= 0 && compare(v, high) < 0;
    }
    case "~": {
      const high = above(p.slice(0, Math.min(p.length, 2)));
      return (v) => compare(v, low) >= 0 && compare(v, high) < 0;
    }
    case ">=":
      return (v) => compare(v, low) >= 0;
    case ">":
      return (v) => compare(v, above(p)) >= 0;
    case "<":
      return (v) => compare(v, low) < 0;
    case "<=":
      return (v) => compare(v, above(p)) < 0;
    default:
      return (v) => compare(v, low) >= 0 && compare(v, above(p)) < 0;
  }
}

/**
 * An npm `engines` range (`^22 || ^24`, `>=22`, `22.x || 24.x`, `>=22 <25`) as a test of a version: alternatives
 * joined by `||`, each the comparators it lists, all of which must hold. Undefined when the range holds anything
 * this reader does not know (then no warning is given: it cannot tell).
 */
export function nodeRange(range: string): ((version: string) => boolean) | undefined {
  const alternatives = range.split("||").map((a) =>
    a
      .trim()
      .replace(/(\^|~|>=|<=|>|<|=)\s+/g, "$1")
      .split(/\s+/)
      .filter((c) => c !== "")
      .map(comparator),
  );
  if (alternatives.some((a) => a.length === 0 || a.some((c) => c === undefined))) return undefined;
  return (version) => {
    const p = partial(version.replace(/[-+].*$/, ""));
    if (!p || p.length !== 3) return false;
    const v = full(p);
    return alternatives.some((a) => a.every((c) => c!(v)));
  };
}

/** The majors of a range that lists whole majors only (`^22 || ^24`, `22.x`): [22, 24]; undefined for another shape. */
export function rangeMajors(range: string): number[] | undefined {
  const majors = range.split("||").map((a) => /^\s*(?:\^|~)?(\d+)(?:\.[x*])?\s*$/i.exec(a)?.[1]);
  return majors.every((m) => m !== undefined) ? majors.map(Number) : undefined;
}

/** `^22 || ^24` as a reader says it: `Node.js 22 or 24`; a range of another shape as it is written. */
export function describeRange(range: string): string {
  const majors = rangeMajors(range);
  if (!majors) return `Node.js ${range.trim()}`;
  return `Node.js ${majors.length > 1 ? `${majors.slice(0, -1).join(", ")} or ${majors[majors.length - 1]}` : majors[0]}`;
}

/** `engines.node` of this package's package.json; undefined when it cannot be read. */
export function supportedNodeRange(from: string = __filename): string | undefined {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot(from), "package.json"), "utf8")) as { engines?: { node?: unknown } };
    return typeof pkg.engines?.node === "string" ? pkg.engines.node : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The one line to print when `version` (default: the Node.js running) is not one package.json `engines.node`
 * allows, without a label, `warning:` or line end (each caller says it its way: a CLI line, a Pulumi warning);
 * undefined when it is (or when the range cannot be read: no false alarm).
 */
export function nodeSupportWarning(
  version: string = process.versions.node,
  range: string | undefined = supportedNodeRange(),
): string | undefined {
  if (range === undefined) return undefined;
  const allows = nodeRange(range);
  if (!allows || allows(version)) return undefined;
  const wanted = describeRange(range);
  const example = rangeMajors(range)?.[0];
  return (
    `Node.js ${version.replace(/^v/, "")} is not supported: backup-portal-pulumi supports ${wanted} (package.json engines ` +
    `"${range}"); it may run, but is not tested there${example === undefined ? "" : `: switch, e.g. \`nvm install ${example}\``}`
  );
}
