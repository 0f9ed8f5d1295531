/**
 * TEST CODE — the `backupportal` plugin process behind the engine stand-in's host interface, so that
 * test/engine/engine.ts schedules the plugin's calls exactly as it schedules the dynamic-provider host's
 * (serial Check and Diff, `parallel` executor lanes, one fresh provider per deployment, Read then Diff in a
 * refresh, Delete in reverse dependency order): the bench compares the two paths under one scheduler.
 * The engine configures the default provider with the stack config; a plugin gets its own keys
 * (`backup-portal:url` → `url`), secrets wrapped (provider_plugin.go: the provider's inputs).
 */
import type { ProviderHost } from "../engine/host";
import { secret, type PropertyMap } from "../engine/values";
import { Plugin } from "./plugin";

/** The plugin's resource type for a dynamic type (`pulumi-nodejs:dynamic/backup-portal:Node` → `backupportal:index:Node`). */
export const pluginType = (dynamicType: string) => `backupportal:index:${dynamicType.split(":").pop()}`;

/**
 * `executable`: another provider process speaking the same protocol (the bench's echo provider); `env`: extra
 * environment for the plugin process (the conformance test's BACKUPPORTAL_TRACE_FILE).
 */
export async function startPluginHost(
  config: Record<string, string>,
  secretKeys: string[],
  project: string,
  executable?: string,
  env: Record<string, string> = {},
): Promise<ProviderHost> {
  const plugin = await Plugin.start(env, undefined, executable);
  const args: PropertyMap = {};
  for (const [k, v] of Object.entries(config)) {
    const key = k.replace(/^backup-portal:/, "");
    if (key !== k) args[key] = secretKeys.includes(k) ? secret(v) : v;
  }
  const configured = await plugin.configure(args);
  let exited = false;
  const calls: ProviderHost["calls"] = [];
  const call = <T>(method: string, urn: string | undefined, work: () => Promise<T>): Promise<T> => {
    calls.push({ method, urn });
    return work();
  };
  return {
    port: 0,
    pid: plugin.pid,
    project,
    calls,
    configured: { ...configured, acceptResources: false, acceptOutputs: false },
    configure: () => Promise.reject(new Error("the plugin is configured once, when started")),
    check: (urn, olds, news, opts) => call("Check", urn, () => plugin.check(urn, olds, news, opts?.preview)),
    // The old inputs go with Diff, Update and Delete, as the engine sends them (test/real-engine/conformance.test.ts).
    diff: (id, urn, olds, news, oldInputs, opts) =>
      call("Diff", urn, async () => {
        const d = await plugin.diff(id, urn, olds, news, opts?.preview, oldInputs);
        return { changes: d.changes, replaces: d.replaces, deleteBeforeReplace: d.deleteBeforeReplace, diffs: d.diffs, stables: [] };
      }),
    create: (urn, props, preview) => call("Create", urn, () => plugin.create(urn, props, preview)),
    read: (id, urn, props, inputs) => call("Read", urn, () => plugin.read(id, urn, props, inputs)),
    update: (id, urn, olds, news, oldInputs, preview) => call("Update", urn, () => plugin.update(id, urn, olds, news, preview, oldInputs)),
    delete: (id, urn, props, oldInputs) => call("Delete", urn, () => plugin.delete(id, urn, props, oldInputs)),
    logs: () => plugin.logs(),
    get exited() {
      return exited;
    },
    kill: async () => {
      exited = true;
      await plugin.close();
    },
    close: async () => {
      exited = true;
      await plugin.close();
    },
  };
}
