// The floor of `npm run bench:plugin -- --paths floor`: a provider that does no work, in the bench's own process.
// Check gives the inputs back, Diff finds no change, Create and Read answer at once with an id and sends no
// request, so a phase's wall time is the engine stand-in's own scheduling and coding alone. Next to the
// ideal (which counts only requests), it says how much of the 1.2 × target the stand-in leaves to a provider.
import type { CreateResult, HostCall, ProviderHost } from "../test/engine/host";

export function startFloorHost(project: string): Promise<ProviderHost> {
  const calls: HostCall[] = [];
  let next = 1;
  let exited = false;
  const created = (props: Record<string, unknown>): CreateResult => ({ id: String(next++), properties: { ...props } });
  const host: ProviderHost = {
    port: 0,
    // No process of its own: its CPU is the stand-in's (reported as such), none is counted as a provider's.
    pid: 0,
    project,
    calls,
    configured: { acceptSecrets: true, acceptResources: false, supportsPreview: true, acceptOutputs: false },
    configure: () => Promise.reject(new Error("the floor host is configured when started")),
    check: async (urn, _olds, news) => (calls.push({ method: "Check", urn }), { inputs: news, failures: [] }),
    diff: async (_id, urn) => (
      calls.push({ method: "Diff", urn }),
      { changes: "none", replaces: [], deleteBeforeReplace: false, diffs: [], stables: [] }
    ),
    create: async (urn, props) => (calls.push({ method: "Create", urn }), created(props)),
    read: async (id, urn, props) => (calls.push({ method: "Read", urn }), { id, properties: props }),
    update: async (_id, urn, _olds, news) => (calls.push({ method: "Update", urn }), { properties: news }),
    delete: async (_id, urn) => void calls.push({ method: "Delete", urn }),
    logs: () => "",
    get exited() {
      return exited;
    },
    kill: async () => void (exited = true),
    close: async () => void (exited = true),
  };
  return Promise.resolve(host);
}
