// Entry point of the `backup-portal` command: picks the subcommand and hands
// it the remaining arguments. Each subcommand lives in its own module and
// exports its declaration `COMMAND` (options and help) and
// `run(argv: string[], io?): Promise<number>` (the exit code).
import * as fs from "fs";
import * as path from "path";
import { packageRoot } from "../dynamic/specifier";
import { nodeSupportWarning } from "../node-support";
import { suggest } from "../rules/suggest";
import { failureText } from "./failure";
import { CommandIo, CommandSpec, formatHelp, parseCommandArgs, processIo, usageFailure, UsageError } from "./args";

/**
 * Each command: its module, its line in the help, and `also`: words a user may try for it that are no misspelling
 * of its name (`list` for the two commands that list), answered with it as a did-you-mean.
 */
const commands: Record<string, { module: string; summary: string; also?: string[] }> = {
  doctor: { module: "./doctor", summary: "check a portal before the first pulumi up: which reading it uses, what holds" },
  metadata: { module: "./metadata", summary: "print what the instance metadata reader finds" },
  register: { module: "./register", summary: "register this instance as a backup node" },
  "business-units": {
    module: "./business-units",
    summary: "business units below one, with their ids (for --bunit)",
    also: ["list", "ls", "bunits", "tenants"],
  },
  consumers: { module: "./consumers", summary: "consumers of a business unit, with their ids (for --consumer)", also: ["list", "ls"] },
  reports: { module: "./reports", summary: "node reports of a consumer" },
  jobs: { module: "./jobs", summary: "backup and restore jobs of a consumer" },
  audit: { module: "./audit", summary: "audit log of a consumer" },
  invoices: { module: "./invoices", summary: "invoices of a business unit" },
  billing: { module: "./billing", summary: "billing data of a reseller business unit" },
  export: { module: "./export", summary: "write the portal's business units as an adopted stack file (reads only)" },
  validate: { module: "./validate", summary: "check a stack file as the stack program does, without the Pulumi CLI" },
  "plan-guard": { module: "./plan-guard", summary: "refuse a pulumi preview --json that deletes tenants (the GitOps check)" },
  "init-workflows": { module: "./init-workflows", summary: "write the GitOps workflows (preview, up, drift) into this project" },
  "billing-receiver": { module: "../billing/main", summary: "receive the portal's billing notifications" },
  "registration-broker": { module: "../broker/main", summary: "register instances that present a one-time token" },
};

interface CommandModule {
  COMMAND: CommandSpec;
  run(argv: string[], io?: CommandIo): Promise<number>;
}

function load(name: string): CommandModule {
  return require(commands[name].module) as CommandModule;
}

const width = Math.max(...Object.keys(commands).map((n) => n.length));

/** `backup-portal` itself: its options before a command, and the list of commands. */
const TOP: CommandSpec = {
  label: "backup-portal",
  usage: ["backup-portal <command> [options]", "backup-portal help <command>"],
  about: ["commands:", ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)].join("\n"),
  options: { version: { kind: "flag", short: "V", description: "print the version of backup-portal-pulumi" } },
  epilog: "Run `backup-portal help <command>` or `backup-portal <command> --help` for a command's options.",
};

/** The commands `backup-portal` offers, in the order its help lists them. */
export const COMMAND_NAMES = Object.keys(commands);

/** The commands' declarations, by name (each module loaded). */
export function commandSpec(name: string): CommandSpec {
  return load(name).COMMAND;
}

/**
 * The version in the package.json of the package `from` belongs to: this module's by default, in a
 * source checkout, in dist/ or in an installed package.
 */
export function packageVersion(from: string = __filename): string {
  const pkg = path.join(packageRoot(from), "package.json");
  return (JSON.parse(fs.readFileSync(pkg, "utf8")) as { version: string }).version;
}

/** The commands `name` may mean: the nearest by spelling, else those that have it (or a near spelling of it) as a word. */
function nearCommands(name: string): string[] {
  const near = suggest(name, [...COMMAND_NAMES, "help"]);
  if (near) return [near];
  const word = suggest(name, [...new Set(Object.values(commands).flatMap((c) => c.also ?? []))]);
  return word === undefined ? [] : COMMAND_NAMES.filter((n) => commands[n].also?.includes(word));
}

function unknownCommand(io: CommandIo, name: string): number {
  const near = nearCommands(name);
  return usageFailure(io, TOP, `unknown command ${JSON.stringify(name)}${near.length ? `; did you mean ${near.join(" or ")}?` : ""}`);
}

export async function main(argv: string[], io: CommandIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.out(`${formatHelp(TOP)}\n`);
    return 2;
  }
  if (name.startsWith("-")) {
    let values;
    try {
      values = parseCommandArgs(TOP, argv);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      return usageFailure(io, TOP, err.message);
    }
    io.out(values.version ? `${packageVersion()}\n` : `${formatHelp(TOP)}\n`);
    return 0;
  }
  if (name === "help") {
    // `help --help` as other tools answer it: the list of commands.
    if (rest.length === 0 || (rest.length === 1 && (rest[0] === "--help" || rest[0] === "-h"))) {
      io.out(`${formatHelp(TOP)}\n`);
      return 0;
    }
    if (rest.length > 1) return usageFailure(io, TOP, `help takes one command, got ${rest.length}`);
    if (!Object.hasOwn(commands, rest[0])) return unknownCommand(io, rest[0]);
    io.out(`${formatHelp(commandSpec(rest[0]))}\n`);
    return 0;
  }
  if (!Object.hasOwn(commands, name)) return unknownCommand(io, name);
  return load(name).run(rest, io);
}

if (require.main === module || process.argv[1]?.endsWith("backup-portal.js") || process.argv[1]?.endsWith("backup-portal")) {
  // On stderr: stdout may be data (export, --json).
  const nodeWarning = nodeSupportWarning();
  if (nodeWarning) process.stderr.write(`backup-portal: warning: ${nodeWarning}\n`);
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(failureText("backup-portal", err));
      process.exitCode = 1;
    },
  );
}
