// The rule of the receiver's shared secret (the Post URL's `secret=`), for the receiver at start and for
// BillingReceiver at preview: one place. An empty secret would turn the check off and let anyone who reaches the
// receiver make it read the portal.

/** The shortest receiver secret. */
export const MIN_SECRET_LENGTH = 8;

/** Why `secret` cannot be the receiver's secret; undefined when it can. Never quotes the value. */
export function receiverSecretProblem(secret: unknown): string | undefined {
  if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH)
    return `secret must have at least ${MIN_SECRET_LENGTH} characters${typeof secret === "string" ? ` (it has ${secret.length})` : ""}; make one with \`openssl rand -hex 24\``;
  return undefined;
}
