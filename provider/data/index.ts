// Data functions for programs and scripts: plain async functions over a PortalClient.
export * from "./dates";
export * from "./reference";
export * from "./activity";
export * from "./billing";
