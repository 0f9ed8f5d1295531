// Every key of the registry block in stack config reaches the component (issue 27.3): a block with all keys of
// REGISTRY_CONFIG_KEYS set to generated valid values goes through registryArgsFromConfig and the Registry
// component under pulumi mocks, and each value is found unchanged where it belongs: the Helm release, its
// values, config.json, the htpasswd Secret, the Namespace.
import assert from "node:assert/strict";
import bcrypt from "bcryptjs";
import fc from "fast-check";
import { Registry, registryArgsFromConfig } from "../../provider/registry";
import { defaultPasswordKey, REGISTRY_CONFIG_KEYS } from "../../provider/registry/from-config";
import { installMocks, Recorded, settle, unwrap } from "../support/mocks";

const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,14}[a-z0-9]$/);
const ociRepo = fc.tuple(label, label, label).map(([h, a, b]) => `${h}.example:5000/${a}/${b}`);

/** A generated valid value for each key of the block. */
const GENERATORS = {
  enabled: fc.constant(true),
  namespace: label,
  createNamespace: fc.boolean(),
  releaseName: label,
  chartVersion: fc.tuple(fc.nat(9), fc.nat(9), fc.nat(300)).map(([a, b, c]) => `${a}.${b}.${c}`),
  chartRepository: fc.oneof(
    fc.tuple(label, label).map(([h, p]) => `https://${h}.example/${p}`),
    fc.tuple(label, label).map(([h, p]) => `oci://${h}.example/${p}`),
  ),
  storageSize: fc.tuple(fc.integer({ min: 1, max: 5000 }), fc.constantFrom("Mi", "Gi", "Ti", "")).map(([n, u]) => `${n}${u}`),
  storageClass: fc.oneof(
    fc.constant(""),
    label,
    fc.tuple(label, label).map(([a, b]) => `${a}.${b}`),
  ),
  realm: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,20}$/),
  users: fc.uniqueArray(
    fc.record({ username: fc.stringMatching(/^[a-z][a-z0-9_.-]{0,11}$/), passwordSecretKey: fc.option(label, { nil: undefined }) }),
    { minLength: 1, maxLength: 2, selector: (u) => u.username },
  ),
  config: fc.record({
    log: fc.record({ level: fc.constantFrom("debug", "info", "warn", "error") }),
    storage: fc.record({ dedupe: fc.boolean(), gcDelay: fc.constantFrom("30m", "1h", "2h") }),
  }),
  cve: fc.record({ dbRepository: ociRepo, javaDbRepository: ociRepo }),
  values: fc.record({
    podLabels: fc.dictionary(label, label, { minKeys: 1, maxKeys: 3 }),
    nodeSelector: fc.dictionary(label, label, { minKeys: 1, maxKeys: 2 }),
  }),
};

type Block = { [K in keyof typeof GENERATORS]: (typeof GENERATORS)[K] extends fc.Arbitrary<infer T> ? T : never };

/** The leaves of a plain object, as [path, value]. */
function leaves(o: Record<string, unknown>, prefix: string[] = []): Array<[string[], unknown]> {
  return Object.entries(o).flatMap(([k, v]) =>
    typeof v === "object" && v !== null && !Array.isArray(v) ? leaves(v as Record<string, unknown>, [...prefix, k]) : [[[...prefix, k], v]],
  );
}
const at = (o: unknown, path: string[]) => path.reduce<unknown>((x, k) => (x as Record<string, unknown> | undefined)?.[k], o);

describe("registry: every key of the stack config block reaches the component (27.3)", function () {
  this.timeout(300_000);
  let recorded: Recorded[] = [];
  let seq = 0;
  before(async () => {
    recorded = await installMocks();
  });

  it("the generators cover exactly the block's keys", () => {
    assert.deepEqual(Object.keys(GENERATORS).sort(), [...REGISTRY_CONFIG_KEYS].sort());
  });

  it("each generated value arrives unchanged in the release, its values, config.json, the Secret or the Namespace", async () => {
    await fc.assert(
      fc.asyncProperty(fc.record(GENERATORS) as fc.Arbitrary<Block>, async (block) => {
        const raw = JSON.parse(JSON.stringify(block)) as Block; // as YAML hands it over: no undefined keys
        const lookups: string[] = [];
        const { args, problems } = registryArgsFromConfig(raw, "registry", (key) => {
          lookups.push(key);
          return `pw-${key}`;
        });
        assert.deepEqual(problems, [], JSON.stringify(raw));
        const name = `keys${++seq}`;
        new Registry(name, args!);
        const expected = 3 + (block.createNamespace ? 1 : 0) + 1; // component, ConfigMap, Release, Namespace?, Secret
        const mine = await settle(recorded, name, expected);
        const of = (t: string) => mine.filter((r) => r.type === t);
        const [release] = of("kubernetes:helm.sh/v3:Release");
        const [configMap] = of("kubernetes:core/v1:ConfigMap");
        const values = unwrap(release.inputs.values);
        const config = JSON.parse(configMap.inputs.data["config.json"]);

        const reached: Record<keyof Block, () => void> = {
          enabled: () => assert.equal(of("kubernetes:helm.sh/v3:Release").length, 1),
          namespace: () => {
            assert.equal(release.inputs.namespace, block.namespace);
            assert.equal(configMap.inputs.metadata.namespace, block.namespace);
          },
          createNamespace: () => {
            const ns = of("kubernetes:core/v1:Namespace");
            assert.equal(ns.length, block.createNamespace ? 1 : 0);
            if (block.createNamespace) assert.equal(ns[0].inputs.metadata.name, block.namespace);
          },
          releaseName: () => assert.equal(release.inputs.name, block.releaseName),
          chartVersion: () => assert.equal(release.inputs.version, block.chartVersion),
          chartRepository: () => {
            if (block.chartRepository.startsWith("oci://")) assert.equal(release.inputs.chart, `${block.chartRepository}/zot`);
            else assert.deepEqual(release.inputs.repositoryOpts, { repo: block.chartRepository });
          },
          storageSize: () => assert.equal(values.pvc.storage, block.storageSize),
          storageClass: () =>
            block.storageClass === ""
              ? assert.equal("storageClassName" in values.pvc, false)
              : assert.equal(values.pvc.storageClassName, block.storageClass),
          realm: () => assert.equal(config.http.realm, block.realm),
          users: () => {
            const lines: string[] = unwrap(of("kubernetes:core/v1:Secret")[0].inputs.stringData).htpasswd.trimEnd().split("\n");
            assert.deepEqual(
              lines.map((l) => l.slice(0, l.indexOf(":"))),
              block.users.map((u) => u.username),
            );
            const keys = block.users.map((u) => u.passwordSecretKey ?? defaultPasswordKey(u.username));
            assert.deepEqual(lookups, keys);
            lines.forEach((l, i) => assert.ok(bcrypt.compareSync(`pw-${keys[i]}`, l.slice(l.indexOf(":") + 1)), keys[i]));
          },
          config: () => {
            for (const [path, v] of leaves(block.config)) assert.deepEqual(at(config, path), v, path.join("."));
          },
          cve: () => {
            assert.equal(config.extensions.search.cve.trivy.dbRepository, block.cve.dbRepository);
            assert.equal(config.extensions.search.cve.trivy.javaDBRepository, block.cve.javaDbRepository);
          },
          values: () => {
            for (const [path, v] of leaves(block.values)) assert.deepEqual(at(values, path), v, path.join("."));
          },
        };
        for (const key of REGISTRY_CONFIG_KEYS) reached[key as keyof typeof reached]();
      }),
      { numRuns: 12 },
    );
  });
});
