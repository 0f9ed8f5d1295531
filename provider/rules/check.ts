// A resource's Check part for the fields of its table (fields.ts): every problem
// as a check failure naming the input property. Named references are only
// checked for shape here; dynamic/references.ts resolves them against the portal.
import { Failures, isUnknown } from "../dynamic/values";
import type { ReferenceInput } from "../dynamic/references";
import { fieldProblem, FieldTable, requiredHint } from "./fields";

const absent = (v: unknown) => v === undefined || v === null;

/** Adds a failure for each field of `table` that `inputs` get wrong; an empty string or name counts as absent. */
export function checkFields(f: Failures, inputs: Record<string, unknown>, table: FieldTable): void {
  for (const [key, rule] of Object.entries(table)) {
    const v = inputs[key];
    const empty = v === "" && (rule.kind === "string" || rule.kind === "reference");
    if (absent(v) || empty) {
      if (rule.required) f.add(key, `${key} is required; ${requiredHint(rule)}`);
      else if (empty) delete inputs[key];
      continue;
    }
    const problem = fieldProblem(v, rule, isUnknown);
    if (problem) f.add(key, `${key} ${problem}`);
  }
}

/** Whether Check already reported a failure for `key`. */
export function failed(f: Failures, key: string): boolean {
  return f.list.some((x) => x.property === key);
}

/** The named references of a table, for checkReferences: those Check has not already refused. */
export function referenceInputs(f: Failures, table: FieldTable): ReferenceInput[] {
  const out: ReferenceInput[] = [];
  for (const [key, rule] of Object.entries(table)) {
    if ((rule.kind === "reference" || rule.kind === "references") && !failed(f, key)) {
      out.push({ key, kind: rule.ref, required: !!rule.required, scope: rule.scope });
    }
  }
  return out;
}
