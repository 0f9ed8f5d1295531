// The `backupportal` plugin process (bin/pulumi-resource-backupportal): serves
// the ResourceProvider protocol on a loopback port, prints the port on stdout as
// the engine's plugin loader reads it (sdk/go/common/resource/plugin/plugin.go),
// and serves until the engine stops it (SIGTERM/SIGINT, or Cancel).
import * as fs from "fs";
import * as path from "path";
import { packageRoot } from "../dynamic/specifier";
import { packageSchema } from "./schema";
import { serve } from "./server";

function version(): string {
  return JSON.parse(fs.readFileSync(path.join(packageRoot(__filename), "package.json"), "utf8")).version;
}

const HELP = `usage: pulumi-resource-backupportal [--schema | --version | --help]

The backupportal resource plugin. The Pulumi CLI starts it and talks to it over gRPC (docs/plugin.md); it is not
run by hand. Without arguments it serves the provider protocol on a loopback port and prints that port.

options:
  --schema    print the package schema (for pulumi package gen-sdk) and exit
  --version   print the plugin's version and exit
  -h, --help  show this help and exit
`;

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(HELP);
    return;
  }
  if (argv.includes("--version")) {
    process.stdout.write(`${version()}\n`);
    return;
  }
  // `--schema`: the package schema GetSchema answers, on stdout, for `pulumi package gen-sdk <file>` in a release.
  if (argv.includes("--schema")) {
    process.stdout.write(JSON.stringify(await packageSchema(version()), null, 2) + "\n");
    return;
  }
  // The engine reads the first line of stdout as the port: nothing else may be printed there.
  console.log = console.error;
  // The engine starts a plugin with its flags (--logtostderr, -v=N, --tracing <endpoint>), then its own address.
  const engine = argv.filter((a) => !a.startsWith("-")).pop();
  const { port, shutdown } = await serve({ version: version(), engine, onCancel: () => undefined });
  process.stdout.write(`${port}\n`);
  const stop = () => void shutdown().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`backupportal: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
