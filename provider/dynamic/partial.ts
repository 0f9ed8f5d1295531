// A create that made the object but failed a later step (activation, password).
// The host passes `id` and `properties` to the engine, which records the object
// in state as partially created; the next `pulumi up` updates it to completion
// instead of leaving an object on the portal that no state knows.
export class PartialCreateError extends Error {
  readonly reasons: string[];

  constructor(
    readonly id: string,
    readonly properties: Record<string, unknown>,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`created ${id}, but a later step failed: ${reason}. The object is kept in state; run \`pulumi up\` again to finish it.`);
    this.name = "PartialCreateError";
    this.reasons = [reason];
  }
}
