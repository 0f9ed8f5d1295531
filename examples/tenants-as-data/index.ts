// The program is this repository's stack program (stacks/index.ts): it reads `backup-portal:tenants`
// from the stack file, validates every tenant (all problems at once, before anything is changed) and
// declares a BusinessUnit, Consumers, Nodes and NodeProxies for them. Copying this project means
// working in a clone of the repository (or one made from it), where this path resolves.
import program = require("../../stacks/index");
export = program;
