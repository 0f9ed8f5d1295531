// Which Node.js versions the package supports, read from one place: package.json `engines.node`. The CLI and the
// stack program print one warning line when they run on another (npm's own EBADENGINE warning is one line among
// many of `npm ci`'s output, and not shown at all when the package is already installed). Not an error: an
// unsupported Node may still run everything; it is only not tested.
import * as fs from "fs";
import * as path from "path";
import semver from "semver";
import { packageRoot } from "./dynamic/specifier";

/**
 * An npm `engines` range (`^22 || ^24`, `>=22 <25`, `22.x`) as a test of a version, read by npm's own reader
 * (semver, as npm checks `engines`). Undefined when the range is not one (then no warning is given: it cannot tell).
 */
export function nodeRange(range: string): ((version: string) => boolean) | undefined {
  if (range.trim() === "" || semver.validRange(range) === null) return undefined;
  return (version) => semver.satisfies(version, range);
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
