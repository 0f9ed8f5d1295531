// @pulumi/kubernetes is an optional peer dependency: a program that manages tenants only does not install it.
// The Registry, BillingReceiver and RegistrationBroker components reach it through `k8s` below, which loads the package the first
// time one of them touches it, so importing this package never needs it, and a component used without it fails
// with one line that says what to install.
import type * as K8s from "@pulumi/kubernetes";

export const KUBERNETES_PACKAGE = "@pulumi/kubernetes";

/** Thrown when a Kubernetes component is used and @pulumi/kubernetes is not installed. */
export class KubernetesMissingError extends Error {
  constructor() {
    super(
      `the Registry, BillingReceiver and RegistrationBroker components need ${KUBERNETES_PACKAGE}, which is not installed: ` +
        `run \`npm install ${KUBERNETES_PACKAGE}@^4\` in your Pulumi program`,
    );
    this.name = "KubernetesMissingError";
  }
}

let loaded: typeof K8s | undefined;

function load(): typeof K8s {
  try {
    return require(KUBERNETES_PACKAGE) as typeof K8s;
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND" && String(err).includes(KUBERNETES_PACKAGE);
    if (missing) throw new KubernetesMissingError();
    throw err;
  }
}

/** The @pulumi/kubernetes module, loaded on first use. */
export const k8s: typeof K8s = new Proxy({} as typeof K8s, {
  get: (_target, key) => (loaded ??= load())[key as keyof typeof K8s],
});
