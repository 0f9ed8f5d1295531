// Tenants as data: the program is the package's own. It reads `backup-portal:tenants` from the stack file
// (Pulumi.dev.yaml), checks every tenant (all problems at once, before anything is changed) and declares a
// BusinessUnit, Consumers, Nodes and NodeProxies for them; its outputs are the portal's ids of each.
import { tenantsFromConfig } from "backup-portal-pulumi";

export = tenantsFromConfig();
