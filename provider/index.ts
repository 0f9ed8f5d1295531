// Public entry point of backup-portal-pulumi: what a Pulumi program imports.
export { BusinessUnit, BusinessUnitArgs, businessUnitProvider } from "./resources/business-unit";
export { Consumer, ConsumerArgs, consumerProvider } from "./resources/consumer";
export { Node, NodeArgs, nodeProvider } from "./resources/node";
export { NodeProxy, NodeProxyArgs, nodeProxyProvider } from "./resources/node-proxy";
export * as portal from "./portal";
export { PortalClient, PortalError, PortalSettings } from "./portal";
