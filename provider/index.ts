// Public entry point of backup-portal-pulumi: what a Pulumi program imports.

// Portal resources (dynamic providers).
export { BusinessUnit, BusinessUnitArgs, businessUnitProvider } from "./resources/business-unit";
export { Consumer, ConsumerArgs, consumerProvider } from "./resources/consumer";
export { Node, NodeArgs, nodeProvider } from "./resources/node";
export { NodeProxy, NodeProxyArgs, nodeProxyProvider } from "./resources/node-proxy";

// The zot registry on Kubernetes.
export { Registry, RegistryArgs, verifyRegistry } from "./registry";

// The billing notification receiver on Kubernetes.
export { BillingReceiver } from "./billing";

// Instance self-registration: the cloud-init user data for new instances, the one-time token it carries, and
// the broker (on Kubernetes) that registers an instance presenting one.
export { registrationUserData, mintRegistrationToken } from "./registration";
export { RegistrationBroker } from "./broker/component";

// Tenants as data: the stack program, for a project whose `index.js` is
// `module.exports = require("backup-portal-pulumi").tenantsFromConfig();` (README step 1).
export { plainStackTraces, tenantsFromConfig } from "./program";
export type { StackOutputs } from "./program";

// Everything else, by capability.
export * as portal from "./portal";
export * as registry from "./registry";
export * as billing from "./billing";
export * as data from "./data";
export * as metadata from "./metadata";
export * as registration from "./registration";
export * as broker from "./broker";
export { PortalClient, PortalError, PortalSettings } from "./portal";
