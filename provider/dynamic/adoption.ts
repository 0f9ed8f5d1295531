// Check's part for `adoptId` (BusinessUnit, Consumer): the object to adopt is on the portal, under the business
// unit the inputs put it. It is read only while the adoptId is new to the resource: once the state holds the same
// adoptId under the same parent, Check reads nothing, so a preview of an unchanged stack costs the portal nothing
// here, however many objects it adopts. The read is the parent's list, once per parent and host process
// (References.childOf, consumerOf). A parent whose id is not known yet (created or adopted in this run: a preview
// has no id for it) leaves the check to the Check the `up` runs, still before this resource's create.
import { failed } from "../rules/check";
import { explainMissing, isReferenceProblem, MisplacedObjectError, References } from "./references";
import { Failures, sameValue } from "./values";

/** What an adoptId names, and the input holding the business unit it is to be found under. */
export type Adoptee = { kind: "businessUnit"; parentKey: "parentId" } | { kind: "consumer"; parentKey: "businessUnitId" };

const FIX = "; check the id or remove adoptId to create one";

/**
 * Adds the failure at `adoptId` when it names nothing under the parent (or at the parent's key when that business
 * unit is the one missing); reads nothing when the adoptId is not new, not known, or already refused.
 */
export async function checkAdoptId(
  f: Failures,
  refs: () => References,
  olds: Record<string, unknown>,
  inputs: Record<string, any>,
  { kind, parentKey }: Adoptee,
): Promise<void> {
  const id = inputs.adoptId;
  const parent = inputs[parentKey];
  if (typeof id !== "number" || typeof parent !== "number" || failed(f, "adoptId") || failed(f, parentKey)) return;
  // Already in the state under this parent: checked when it was set.
  if (sameValue(olds.adoptId, id) && sameValue(olds[parentKey], parent)) return;
  try {
    await (kind === "businessUnit" ? refs().childOf(parent, id) : refs().consumerOf(parent, id));
  } catch (err) {
    if (isReferenceProblem(err)) {
      f.add("adoptId", `adoptId: ${err.message}${err instanceof MisplacedObjectError ? "" : FIX}`);
      return;
    }
    // The parent's list refused (404/403): that business unit is the problem.
    const named = await explainMissing(err, refs(), [{ key: parentKey, kind: "businessUnit", id: parent }]);
    if (named === err) throw err;
    f.add(parentKey, (named as Error).message);
  }
}
