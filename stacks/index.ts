// The Pulumi program of this project (Pulumi.yaml `main: stacks/index.ts`): the package's own tenants-as-data
// program (provider/program/), as a user's project runs it from the installed package with
// `import { tenantsFromConfig } from "backup-portal-pulumi"`.
import { tenantsFromConfig } from "../provider/program";

export = tenantsFromConfig();
