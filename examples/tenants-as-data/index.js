// Tenants as data: the program is the package's own. It reads `backup-portal:tenants` from the stack file
// (Pulumi.dev.yaml), checks every tenant (all problems at once, before anything is changed) and declares a
// BusinessUnit, Consumers, Nodes and NodeProxies for them; its outputs are the portal's ids of each. Plain
// JavaScript (Pulumi.yaml `typescript: false`): the runtime runs it as it is, with nothing to compile.
module.exports = require("backup-portal-pulumi").tenantsFromConfig();
