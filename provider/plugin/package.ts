// What the plugin's package is called (its type tokens and its config namespace) and which of its config keys are
// secrets. A leaf: the call trace, which the dynamic providers' host loads too, needs these and nothing of the
// plugin's resources (which load the lifecycles, which load the dynamic provider).
export const PACKAGE = "backupportal";

/** The provider config keys that hold secrets. */
export const SECRET_CONFIG_KEYS: readonly string[] = ["password"];

/** A resource's type token: `backupportal:index:<name>`. */
export const tokenOfName = (name: string): string => `${PACKAGE}:index:${name}`;
