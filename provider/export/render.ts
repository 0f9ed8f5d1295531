// The exported tenants as a stack file: YAML with the comments at their place (the `yaml` package's Document
// API), or JSON without them. Same input, same bytes: no dates, no host names, keys already sorted.
import { Document, isMap, isScalar, Node as YamlNode, Scalar, YAMLMap, YAMLSeq } from "yaml";
import { escapeJsonText } from "../rules/yaml-scalars";
import { OutMap, OutValue, plain } from "./out";
import { stackYamlText } from "./stack-yaml";

export const ROOT_KEY = "backup-portal:rootBusinessUnitId";
export const TENANTS_KEY = "backup-portal:tenants";

/** Comment text: each line with a leading space, as `# text`. */
const commentText = (lines: string[]) => lines.map((l) => ` ${l}`).join("\n");

/** One value as a YAML node of `doc`, its comments attached. */
export function yamlNode(doc: Document, v: OutValue): YamlNode {
  if (v instanceof OutMap) {
    const map = new YAMLMap();
    let pending: string[] = [];
    for (const item of v.items) {
      if (!("key" in item)) {
        pending.push(...item.comment);
        continue;
      }
      const key = new Scalar(item.key);
      const lines = [...pending, ...(item.before ?? [])];
      if (lines.length) key.commentBefore = commentText(lines);
      pending = [];
      map.items.push(doc.createPair(key, yamlNode(doc, item.value)));
    }
    if (pending.length) map.comment = commentText(pending);
    if (map.items.length === 0) map.flow = true;
    return map;
  }
  if (Array.isArray(v)) {
    const seq = new YAMLSeq();
    for (const item of v) seq.items.push(yamlNode(doc, item));
    return seq;
  }
  return doc.createNode(v);
}

/** A value as YAML lines (comments included), e.g. to write it out as a comment. */
export function yamlText(v: OutValue): string[] {
  const doc = new Document();
  doc.contents = yamlNode(doc, v);
  return stackYamlText(doc).replace(/\n$/, "").split("\n");
}

export interface StackFileParts {
  /** The connection's plain keys (`backup-portal:url` …), written first; never the password. */
  connection?: Record<string, string>;
  rootId: number;
  tenants: OutMap;
  /** Lines of the comment at the top. */
  header: string[];
}

/**
 * The root business unit as the Pulumi CLI writes a top-level config value back: a string (`"1"`). Written as the
 * number, the user's first `pulumi config set` rewrote the line to `"1"`, a diff nobody made.
 */
export const rootText = (rootId: number): string => String(rootId);

/** The stack file: `config:` with the root business unit and the tenants block. */
export function renderYaml(parts: StackFileParts): string {
  const doc = new Document();
  const config = new YAMLMap();
  for (const [key, value] of Object.entries(parts.connection ?? {})) config.items.push(doc.createPair(key, value));
  config.items.push(doc.createPair(ROOT_KEY, rootText(parts.rootId)));
  config.items.push(doc.createPair(TENANTS_KEY, yamlNode(doc, parts.tenants)));
  const top = new YAMLMap();
  top.items.push(doc.createPair("config", config));
  doc.contents = top;
  doc.commentBefore = commentText(parts.header);
  return stackYamlText(doc);
}

export function renderJson(parts: StackFileParts): string {
  return `${escapeJsonText(JSON.stringify({ config: { ...parts.connection, [ROOT_KEY]: rootText(parts.rootId), [TENANTS_KEY]: plain(parts.tenants) } }, null, 2))}\n`;
}

export { isMap, isScalar };
