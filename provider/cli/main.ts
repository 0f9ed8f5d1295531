// Entry point of the `backup-portal` command: picks the subcommand and hands
// it the remaining arguments. Each subcommand lives in its own module and
// exports `run(argv: string[]): Promise<number>` (the exit code).
const commands: Record<string, { module: string; summary: string }> = {
  doctor: { module: "./doctor", summary: "check a portal before the first pulumi up: which reading it uses, what holds" },
  metadata: { module: "./metadata", summary: "print what the instance metadata reader finds" },
  register: { module: "./register", summary: "register this instance as a backup node" },
  reports: { module: "./reports", summary: "node reports of a consumer" },
  jobs: { module: "./jobs", summary: "backup and restore jobs of a consumer" },
  audit: { module: "./audit", summary: "audit log of a consumer" },
  invoices: { module: "./invoices", summary: "invoices of a business unit" },
  billing: { module: "./billing", summary: "billing data of a reseller business unit" },
  "billing-receiver": { module: "../billing/main", summary: "receive the portal's billing notifications" },
};

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return ["usage: backup-portal <command> [options]", "", "commands:", ...lines, "",
    "Run `backup-portal <command> --help` for a command's options."].join("\n");
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h") {
    console.log(usage());
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    console.error(`backup-portal: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const mod = require(command.module) as { run(argv: string[]): Promise<number> };
  return mod.run(rest);
}

if (require.main === module || process.argv[1]?.endsWith("backup-portal.js") || process.argv[1]?.endsWith("backup-portal")) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (err: unknown) => {
      console.error(`backup-portal: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
