// The plugin's one component, `backupportal:index:Tenants`, as the schema describes it: the type, and its outputs.
// Its construction (tenants-component.ts) needs the SDK's runtime; this module does not, so GetSchema and the
// plugin's start-up do without it.
import { PACKAGE } from "./resources";

export const TENANTS_TYPE = `${PACKAGE}:index:Tenants`;

/** The component's outputs: each a map from a resource's name (its key path in the tenants block) to a value. */
export const TENANTS_OUTPUTS = {
  businessUnitIds: { type: "integer", description: "The portal's id of each business unit, by its key path in the tenants block." },
  consumerIds: { type: "integer", description: "The portal's id of each consumer, by its key path (`<business unit>/<consumer>`)." },
  nodeNames: {
    type: "string",
    description: "The name each node was activated under on the backup server (upper-case), by its consumer's key path.",
  },
} as const;

export const TENANTS_DESCRIPTION =
  "The stack's `backup-portal:tenants` block (as `backup-portal export` writes it) as business units, consumers, nodes and " +
  "proxy relations, for programs that cannot loop over a map (YAML). It reads the stack's config itself, with the same " +
  "checks and messages as the TypeScript program: the block, the node passwords' secret keys, " +
  "`backup-portal:rootBusinessUnitId`, `protectBusinessUnits` and `deletionComment`. It connects through its own provider " +
  "(the `backupportal:` settings, or the provider given to it).";
