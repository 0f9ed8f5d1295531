// The fleet from the command line: one stack per tenant group, same project.
//
//   npx ts-node stacks/fleet/main.ts --config stacks/Pulumi.prod.yaml --groups 8 preview
//   npx ts-node stacks/fleet/main.ts --config stacks/fleet/prod.yaml --stack-prefix acme/prod --groups 8 up --yes
//   npx ts-node stacks/fleet/main.ts --config stacks/Pulumi.prod.yaml --groups 8 groups
//   npx ts-node stacks/fleet/main.ts --config stacks/Pulumi.prod.yaml --groups 8 --org acme operator --repo https://github.com/acme/backup-portal
//
// Run `npm ci && npm run build` first: the providers load dist/ at run time.
import * as fs from "fs";
import * as path from "path";
import { checkNamespace, configProblemsText } from "../../provider/stack-config/read";
import { TenantsConfig } from "../../provider/tenants/model";
import { validateTenants } from "../../provider/tenants/validate";
import {
  BaseConfig,
  ConfigMap,
  fleetStackConfigs,
  groupSizeProblems,
  neededSecureKeys,
  normalizeKey,
  readStackConfigFile,
  isSecure,
  referencedSecrets,
  stackConfigPath,
  stackNameOfFile,
  TENANTS_KEY,
  yaml,
} from "./config";
import { FleetConfigError, groupTenants, GroupOptions } from "./group";
import { manifestsYaml, operatorStacks } from "./operator";
import {
  CreateStack,
  DEFAULT_PARALLEL,
  FleetCommand,
  FLEET_COMMANDS,
  findPulumiCli,
  formatCounts,
  formatFleetReport,
  localStackFactory,
  PulumiCliMissingError,
  runFleet,
  stackNameOf,
  staleGroups,
} from "./run";

export const USAGE = `usage: ts-node stacks/fleet/main.ts --config <stack file> (--groups <N> | --by-prefix | --assign <file>) [options] <command>

commands:
  preview | up | destroy | refresh   run on every group's stack (needs the Pulumi CLI; up and destroy need --yes)
  groups                             print the grouping (no CLI needed)
  operator --repo <git url>          print one Pulumi Kubernetes Operator Stack per group (no CLI needed)

options:
  --config <file>        tenants and connection settings in a stack file's shape, e.g. stacks/fleet/prod.yaml
                         (up refuses while the base stack's own file still declares tenants)
  --groups <N>           N stacks; each tenant goes to the bucket of a stable hash of its key (never change N casually)
  --by-prefix            one stack per key prefix (the part before the first "-", "_" or ".")
  --assign <file>        explicit groups: a YAML/JSON map from group name to the list of its tenant keys
  --org <org>            Pulumi organization; stacks are <org>/<base>-<group>
  --stack-prefix <name>  stacks are <name>-<group> (default: [<org>/]<base>, base from the file name)
  --base-stack <name>    the stack to read secret values from (default: [<org>/]<base>)
  --no-base-secrets      do not copy secrets from the base stack (the password then comes from BACKUP_PORTAL_PASSWORD)
  --parallel <n>         groups at once (default ${DEFAULT_PARALLEL})
  --work-dir <dir>       the project directory (default: the one holding Pulumi.yaml above the stack file)
  --refresh              refresh before preview or up, so drift shows up
  --prune                also run the existing <prefix>-* stacks the grouping no longer has, with no tenants:
                         their tenants are deleted (without it, preview lists such stacks and fails, up refuses)
  --quiet                only the summary, not the engine's output
  --yes                  confirm up or destroy
  --repo <url> --branch <name> --namespace <ns>   for operator`;

export interface MainIO {
  out(line: string): void;
  err(line: string): void;
  /** Stack factory (tests); by default the Pulumi CLI through the Automation API. */
  createStack?: CreateStack;
  /** Plaintext of the base stack's secrets (tests); by default `pulumi config --show-secrets` of the base stack. */
  readBaseSecrets?: (stackName: string, workDir: string, keys: string[]) => Promise<Record<string, string>>;
  /** The names of the project's stacks (tests); by default `pulumi stack ls` through the Automation API. */
  listStacks?: (workDir: string) => Promise<string[]>;
}

interface Args {
  command?: string;
  flags: Map<string, string | true>;
}

const VALUE_FLAGS = new Set([
  "config",
  "groups",
  "assign",
  "org",
  "stack-prefix",
  "base-stack",
  "parallel",
  "work-dir",
  "repo",
  "branch",
  "namespace",
]);
const BOOL_FLAGS = new Set(["by-prefix", "no-base-secrets", "refresh", "prune", "quiet", "yes", "help"]);

class UsageError extends Error {}

export function parseArgs(argv: string[]): Args {
  const flags = new Map<string, string | true>();
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "-h") {
      flags.set("help", true);
      continue;
    }
    if (!a.startsWith("--")) {
      if (command !== undefined) throw new UsageError(`one command only; got "${command}" and "${a}"`);
      command = a;
      continue;
    }
    const eq = a.indexOf("=");
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (BOOL_FLAGS.has(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
    } else if (VALUE_FLAGS.has(name)) {
      const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined || value === "") throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
    } else {
      throw new UsageError(`unknown option ${a}`);
    }
  }
  return { command, flags };
}

function findWorkDir(configFile: string): string {
  let dir = path.dirname(path.resolve(configFile));
  for (let i = 0; i < 20; i++) {
    if (fs.existsSync(path.join(dir, "Pulumi.yaml")) || fs.existsSync(path.join(dir, "Pulumi.yml"))) return dir;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return process.cwd();
}

function intFlag(flags: Args["flags"], name: string): number | undefined {
  const v = flags.get(name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== "string" || !Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a whole number ≥ 1, got "${v}"`);
  return n;
}

function groupOptions(flags: Args["flags"]): GroupOptions {
  const chosen = ["groups", "by-prefix", "assign"].filter((f) => flags.has(f));
  if (chosen.length !== 1) throw new UsageError("choose how to group: exactly one of --groups <N>, --by-prefix, --assign <file>");
  if (flags.has("groups")) return { groupBy: "key-prefix", size: intFlag(flags, "groups") };
  if (flags.has("by-prefix")) return { groupBy: "key-prefix" };
  const file = String(flags.get("assign"));
  const groups = yaml.load(fs.readFileSync(file, "utf8"));
  if (!groups || typeof groups !== "object" || Array.isArray(groups))
    throw new UsageError(`${file}: must be a map from group name to a list of tenant keys`);
  return { groupBy: "explicit", groups: groups as Record<string, string[]> };
}

async function defaultReadBaseSecrets(stackName: string, workDir: string, keys: string[]): Promise<Record<string, string>> {
  const { LocalWorkspace } = await import("@pulumi/pulumi/automation");
  const ws = await LocalWorkspace.create({ workDir, pulumiCommand: await findPulumiCli() });
  const all = await ws.getAllConfig(stackName);
  const out: Record<string, string> = {};
  for (const k of keys) if (all[k] !== undefined) out[k] = all[k].value;
  return out;
}

async function defaultListStacks(workDir: string): Promise<string[]> {
  const { LocalWorkspace } = await import("@pulumi/pulumi/automation");
  const ws = await LocalWorkspace.create({ workDir, pulumiCommand: await findPulumiCli() });
  return (await ws.listStacks()).map((s) => s.name);
}

/** The `backup-portal:tenants` of a stack file's config. */
function tenantsIn(config: BaseConfig): TenantsConfig {
  return (Object.entries(config).find(([k]) => normalizeKey(k) === TENANTS_KEY)?.[1] ?? {}) as TenantsConfig;
}

/** What to do about existing stacks of the prefix that the grouping no longer has. */
function staleStacksMessage(stacks: string[]): string {
  return (
    `${stacks.length} existing stack${stacks.length === 1 ? "" : "s"} of the fleet ${stacks.length === 1 ? "is" : "are"} not in this grouping: ` +
    `${stacks.join(", ")}. No run of the fleet manages ${stacks.length === 1 ? "its" : "their"} tenants any more; they stay on the portal. For each:\n` +
    "  - its tenants are to be deleted: preview, then up, with --prune (the stack runs with no tenants, which deletes them), then `pulumi stack rm` it;\n" +
    '  - its tenants moved to other groups: move their state there first (`pulumi state move`, docs/gitops.md "Why a tenant must not change stacks by accident"), then `pulumi stack rm` it;\n' +
    "  - the group is to stay: keep it in the grouping (the earlier --groups N, or its entry in --assign);\n" +
    "  - it is not a fleet stack (a hand-made stack whose name starts with the prefix): rename it or the fleet's stacks (`pulumi stack rename`)"
  );
}

export async function main(argv: string[], io: Partial<MainIO> = {}): Promise<number> {
  const out = io.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = io.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  try {
    const { command, flags } = parseArgs(argv);
    if (flags.has("help")) {
      out(USAGE);
      return 0;
    }
    if (!command) throw new UsageError("no command given");
    const known = [...FLEET_COMMANDS, "groups", "operator"];
    if (!known.includes(command)) throw new UsageError(`unknown command "${command}"; use one of ${known.join(", ")}`);
    const configFile = flags.get("config");
    if (typeof configFile !== "string") throw new UsageError("--config <stack file> is required, e.g. --config stacks/Pulumi.prod.yaml");

    const base: BaseConfig = readStackConfigFile(configFile);
    const tenants = tenantsIn(base);
    // The whole fleet at once: a tsmName used twice in two groups is caught here, not by the portal.
    // Node password secrets are checked by each group's program against its own stack config (they
    // may live in the base stack, or, with the operator, in a Kubernetes Secret).
    // The base file's own keys first, as the program checks them: a misspelt tenants key would otherwise give every
    // group stack no tenant, which deletes them all.
    const ciphertext = (k: string) => isSecure(Object.entries(base).find(([raw]) => normalizeKey(raw) === k)?.[1]);
    const config = Object.fromEntries(
      Object.entries(base).map(([k, v]) => [normalizeKey(k), typeof v === "string" ? v : JSON.stringify(v)]),
    );
    const problems = [
      ...checkNamespace({ config, isSecret: ciphertext, encrypted: ciphertext }).problems,
      ...validateTenants(tenants, { hasSecret: () => true }),
    ];
    if (problems.length) {
      err(`${configFile}: ${configProblemsText(path.basename(configFile), problems, "no stack was touched")}`);
      return 1;
    }
    const groups = groupTenants(tenants, groupOptions(flags));

    const baseName = stackNameOfFile(configFile);
    const org = flags.get("org");
    const qualified = (n: string) => (typeof org === "string" ? `${org}/${n}` : n);
    const prefixFlag = flags.get("stack-prefix");
    if (typeof prefixFlag !== "string" && !baseName)
      throw new UsageError(`cannot tell the stack from "${configFile}" (not Pulumi.<stack>.yaml); give --stack-prefix`);
    const stackPrefix = typeof prefixFlag === "string" ? prefixFlag : qualified(baseName!);

    /** Prints a line for each group stack whose config is too large to run, then `verdict`; whether there was one. */
    const refusedForSize = (configs: Record<string, ConfigMap>, verdict: (count: string) => string): boolean => {
      const tooLarge = groupSizeProblems(configs, groups, (g) => stackNameOf(stackPrefix, g));
      for (const line of tooLarge) err(line);
      if (tooLarge.length) err(verdict(`${tooLarge.length} group stack${tooLarge.length === 1 ? "" : "s"}`));
      return tooLarge.length > 0;
    };

    if (command === "groups") {
      for (const [g, ts] of Object.entries(groups)) {
        const names = Object.keys(ts);
        out(`${stackPrefix}-${g}\t${names.length} tenant${names.length === 1 ? "" : "s"}${names.length ? `: ${names.join(", ")}` : ""}`);
      }
      return 0;
    }

    if (command === "operator") {
      const repo = flags.get("repo");
      if (typeof repo !== "string") throw new UsageError("operator needs --repo <git url of this project>");
      const configs: Record<string, ConfigMap> = fleetStackConfigs(base, groups);
      if (refusedForSize(configs, (count) => `operator: ${count} too large to run; nothing written`)) return 1;
      const branch = flags.get("branch");
      const namespace = flags.get("namespace");
      out(
        manifestsYaml(
          operatorStacks(configs, {
            url: repo,
            stackPrefix,
            branch: typeof branch === "string" ? branch : undefined,
            namespace: typeof namespace === "string" ? namespace : undefined,
          }),
        ).trimEnd(),
      );
      return 0;
    }

    const fleetCommand = command as FleetCommand;
    if ((fleetCommand === "up" || fleetCommand === "destroy") && !flags.has("yes")) {
      throw new UsageError(`${fleetCommand} changes ${Object.keys(groups).length} stacks; run preview first, then add --yes`);
    }
    const workDir = typeof flags.get("work-dir") === "string" ? path.resolve(String(flags.get("work-dir"))) : findWorkDir(configFile);
    const createStack = io.createStack ?? localStackFactory(await findPulumiCli());
    const baseStack = typeof flags.get("base-stack") === "string" ? String(flags.get("base-stack")) : qualified(baseName ?? stackPrefix);
    // The base stack's own file, whether or not it is --config: tenants it declares are managed by it too.
    const baseFile = stackConfigPath(workDir, baseStack);
    const baseTenants = Object.keys(fs.existsSync(baseFile) ? tenantsIn(readStackConfigFile(baseFile)) : {});
    if ((fleetCommand === "up" || fleetCommand === "preview") && Object.keys(tenants).length && baseTenants.length) {
      const problem =
        `stack ${baseStack} still declares ${baseTenants.length} tenant${baseTenants.length === 1 ? "" : "s"} (${baseFile}); ` +
        "once the groups hold the tenants that stack must declare none (tenants: {}), their state moved to the groups first, " +
        'or two stacks manage (and fight over) each tenant (docs/gitops.md, "Adopting the fleet")';
      if (fleetCommand === "up") {
        err(`up refused, no stack was touched: ${problem}`);
        return 1;
      }
      err(`note: ${problem}; up refuses until then`);
    }

    // Groups that disappeared (the last tenant of a prefix removed, fewer --groups, a group dropped
    // from --assign) leave stacks that still hold their tenants.
    const stale =
      fleetCommand === "up" || fleetCommand === "preview"
        ? staleGroups(await (io.listStacks ?? defaultListStacks)(workDir), stackPrefix, Object.keys(groups))
        : [];
    const prune = flags.has("prune");
    if (stale.length && !prune && fleetCommand === "up") {
      err(`up refused, no stack was touched: ${staleStacksMessage(stale.map((g) => stackNameOf(stackPrefix, g)))}`);
      return 1;
    }

    let secrets: Record<string, string> = {};
    const needed = flags.has("no-base-secrets") ? [] : neededSecureKeys(base, groups);
    if (needed.length) {
      try {
        secrets = await (io.readBaseSecrets ?? defaultReadBaseSecrets)(baseStack, workDir, needed);
      } catch (e) {
        err(
          `note: could not read the secrets of stack ${baseStack} (${e instanceof Error ? e.message.split("\n")[0] : e}); ` +
            "groups get none: the portal password then comes from BACKUP_PORTAL_PASSWORD, and nodes with a passwordSecret fail their check",
        );
      }
    }
    const configs: Record<string, ConfigMap> = fleetStackConfigs(base, groups, { secrets });
    if (prune) Object.assign(configs, fleetStackConfigs(base, Object.fromEntries(stale.map((g) => [g, {}])), { secrets }));
    if (fleetCommand === "up" || fleetCommand === "preview") {
      if (refusedForSize(configs, (count) => `${fleetCommand} refused, no stack was touched: ${count} too large to run`)) return 1;
    }
    const unresolved = [...new Set(Object.values(groups).flatMap(referencedSecrets))].filter((k) => secrets[k] === undefined);
    if (unresolved.length) {
      err(
        `note: no value for ${unresolved.join(", ")} (named by passwordSecret); the groups that use ${unresolved.length === 1 ? "it" : "them"} fail their check until it is set in the base stack`,
      );
    }

    const quiet = flags.has("quiet");
    const result = await runFleet({
      workDir,
      groups: configs,
      command: fleetCommand,
      stackPrefix,
      parallel: intFlag(flags, "parallel") ?? DEFAULT_PARALLEL,
      refresh: flags.has("refresh"),
      diff: fleetCommand === "preview",
      createStack,
      onOutput: quiet ? undefined : (g, line) => out(`[${g}] ${line}`),
      onResult: (r) => err(`[${r.group}] ${r.ok ? `done ${formatCounts(r.changes)}` : `FAILED ${r.error}`}`),
    });
    out(formatFleetReport(result));
    if (prune && stale.length) {
      out(
        `not in the grouping, run with no tenants (--prune): ${stale.map((g) => stackNameOf(stackPrefix, g)).join(", ")}; ` +
          (fleetCommand === "up" ? "once their tenants are gone, `pulumi stack rm` them" : "their tenants are deleted by up --prune"),
      );
    } else if (stale.length) {
      out(staleStacksMessage(stale.map((g) => stackNameOf(stackPrefix, g))));
      err(
        `preview: ${stale.length} stack${stale.length === 1 ? "" : "s"} of the fleet not in the grouping (see the report); up refuses until then`,
      );
      return 1;
    }
    return result.ok ? 0 : 1;
  } catch (e) {
    if (e instanceof PulumiCliMissingError) {
      err(e.message);
      return 1;
    }
    if (e instanceof UsageError) {
      err(`${e.message}\n\n${USAGE}`);
      return 2;
    }
    if (e instanceof FleetConfigError) {
      err(e.message);
      return 1;
    }
    err(e instanceof Error ? e.message : String(e));
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
