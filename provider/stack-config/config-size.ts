// A stack file's config against what one environment variable may hold (provider/rules/config-env.ts): the size of
// PULUMI_CONFIG the Pulumi CLI would build from the file for a Node.js program, and the problem line when it is over
// Linux's limit. `backup-portal validate` reports it with the file's other problems; `backup-portal export` after
// writing a file.
import { cliConfigKey } from "../rules/config-keys";
import { configSize, configSizeProblem, ConfigSize } from "../rules/config-env";
import { NAMESPACE, qualified } from "../rules/stack-config";
import { Problem } from "../tenants/model";
import { parseStackFile } from "./file";
import { namedSecrets } from "./secrets";

/** The tenants block's key, the path the problem is reported at. */
const TENANTS = "tenants";

/**
 * The size of the config of a stack file's text (`file` names it in errors; `namespace`: the project's name, which a
 * key without one belongs to). Throws StackFileError for a text that is no stack file.
 */
export function stackFileConfigSize(text: string, file: string, namespace: string = NAMESPACE): ConfigSize {
  const { config: raw } = parseStackFile(text, file, namespace);
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const name = cliConfigKey(key, namespace);
    // A key the CLI refuses to read makes the whole file fail before any program: not counted here.
    if (name !== undefined) config[name] = value;
  }
  const tenantsKey = qualified(TENANTS);
  const secrets = namedSecrets(config[tenantsKey], undefined, undefined).map((s) => qualified(s.key));
  return configSize(config, tenantsKey, secrets);
}

/** The problem of a config too large for PULUMI_CONFIG, at backup-portal:tenants; `shown`: the file as the user names it. */
export function configSizeProblemOf(size: ConfigSize, shown: string): Problem | undefined {
  const message = configSizeProblem(size, shown);
  return message === undefined ? undefined : { path: TENANTS, message };
}

/** stackFileConfigSize and configSizeProblemOf in one: the file's problem, or undefined when it fits. */
export function stackFileSizeProblem(text: string, shown: string, namespace?: string): Problem | undefined {
  return configSizeProblemOf(stackFileConfigSize(text, shown, namespace), shown);
}
