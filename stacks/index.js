// The Pulumi program of this project (Pulumi.yaml `main: stacks/index.js`): the package's own tenants-as-data
// program (provider/program/), as a user's project runs it from the installed package with
// `require("backup-portal-pulumi").tenantsFromConfig()`. Plain JavaScript on the compiled package (`npm run build`
// writes dist/): the Node.js runtime then runs it as it is, without compiling TypeScript on every run, which took
// most of a no-op preview (docs/benchmark.md, "The main job at the engine's floor").
module.exports = require("../dist/provider/program").tenantsFromConfig();
