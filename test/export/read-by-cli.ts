// An exported stack file as each reader reads it: the Pulumi CLI's gopkg.in/yaml.v3 (test/support/yaml-v3), YAML 1.1
// and YAML 1.2 (the `yaml` package). The three must agree, value and type, or the assertion names the difference.
import assert from "node:assert/strict";
import { parse } from "yaml";
import { readWithYamlV3 } from "../support/yaml-v3";

type Tree = null | string | number | boolean | Tree[] | { [key: string]: Tree };

/** A JS value as the CLI hands it to the program: Go's %v text of each scalar. */
const asGoText = (v: Tree): unknown =>
  v === null ? null : Array.isArray(v) ? v.map(asGoText) : typeof v === "object" ? mapValues(v, asGoText) : String(v);

/** The Go type yaml.v3 decodes each scalar of a JS value to, when both read the same. */
const asGoType = (v: Tree): unknown =>
  v === null
    ? "<nil>"
    : Array.isArray(v)
      ? v.map(asGoType)
      : typeof v === "object"
        ? mapValues(v, asGoType)
        : typeof v === "number"
          ? Number.isInteger(v)
            ? "int"
            : "float64"
          : typeof v === "boolean"
            ? "bool"
            : "string";

const mapValues = (o: Record<string, Tree>, f: (v: Tree) => unknown) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

/** The stack file as the three readers read it (asserted equal); the `yaml` package's reading is returned. */
export function readByEveryReader(text: string): { config: Record<string, any> } {
  const js = parse(text) as Tree;
  assert.deepEqual(parse(text, { version: "1.1" }), js, "YAML 1.1 reads the file otherwise than YAML 1.2");
  const go = readWithYamlV3(text);
  assert.deepEqual(go.values, asGoText(js), "yaml.v3 (the Pulumi CLI) reads other values than the yaml package");
  assert.deepEqual(go.types, asGoType(js), "yaml.v3 (the Pulumi CLI) reads other types than the yaml package");
  return js as { config: Record<string, any> };
}
