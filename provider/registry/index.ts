// The zot registry of spec 001 part B as a Pulumi component: a Namespace, a ConfigMap with
// config.json, an optional htpasswd Secret, and a Helm release of the zot chart whose values
// express the spec's deployment values in the chart's real keys.
import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import type * as K8s from "@pulumi/kubernetes";
import { k8s } from "../kubernetes";
import { buildChartValues, CHART_NAME } from "./chart-values";
import { buildHtpasswd } from "./htpasswd";
import { planRegistry, RegistryArgs, RegistryConfigError } from "./plan";
import { RegistryStorageGuard } from "./storage-guard";

export * from "./plan";
export * from "./zot-config";
export * from "./htpasswd";
export * from "./chart-values";
export * from "./chart-schema";
export * from "./key-data";
export * from "./verify";
export * from "./from-config";
export * from "./zot-startup";
export * from "./zot-credentials";
export * from "./args-table";

export const REGISTRY_TYPE = "backup-portal:registry:Registry";

const LABELS = { "app.kubernetes.io/part-of": "backup-portal", "app.kubernetes.io/component": "registry" };

/**
 * The zot registry. Invalid arguments (including a zot configuration zot would refuse at
 * startup) throw a {@link RegistryConfigError} listing every problem, so `pulumi preview`
 * fails before anything is created. Use {@link planRegistry} to get the same list without
 * throwing.
 */
export class Registry extends pulumi.ComponentResource {
  /** The namespace everything lives in. */
  public readonly namespace: pulumi.Output<string>;
  /** The Helm release name. */
  public readonly releaseName: pulumi.Output<string>;
  /** The registry's Service (ClusterIP, port 5000). */
  public readonly serviceName: pulumi.Output<string>;
  /** In-cluster URL: http://<service>.<namespace>.svc.cluster.local:5000 */
  public readonly url: pulumi.Output<string>;
  /** port-forward and curl commands to check the registry (no password, only a placeholder). */
  public readonly accessCommands: pulumi.Output<string[]>;

  constructor(name: string, args: RegistryArgs = {}, opts?: pulumi.ComponentResourceOptions) {
    const { plan, problems, warnings } = planRegistry(args);
    if (!plan) throw new RegistryConfigError(problems);
    super(REGISTRY_TYPE, name, {}, opts);
    // A chart version or zot tag other than the pinned ones (checked with the pinned versions' keys),
    // and settings zot accepts but ignores: deployed as given, with a warning.
    for (const w of warnings) void pulumi.log.warn(w, this);

    const ns = plan.createNamespace
      ? new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: plan.namespace, labels: LABELS } }, { parent: this })
      : undefined;
    const nsName = ns ? ns.metadata.name : pulumi.output(plan.namespace);
    const dependsOn: pulumi.Resource[] = ns ? [ns] : [];

    // Auto-named: a changed config.json replaces the ConfigMap under a new name, which
    // changes the release values and rolls the pod (the checksum annotation does too).
    const configMap = new k8s.core.v1.ConfigMap(
      `${name}-config`,
      { metadata: { namespace: nsName, labels: LABELS }, data: { "config.json": plan.configJson } },
      { parent: this, dependsOn },
    );

    let secret: K8s.core.v1.Secret | undefined;
    let htpasswdChecksum: pulumi.Output<string> | undefined;
    const users = args.users ?? [];
    if (users.length > 0) {
      const usernames = plan.usernames;
      const namespace = plan.namespace;
      // The passwords only ever meet the hashing code inside apply; the result is wrapped in
      // pulumi.secret so the htpasswd (and thus the Secret's stringData) is encrypted in state.
      const htpasswd = pulumi.secret(
        pulumi.all(users.map((u) => pulumi.output(u.password))).apply((passwords) =>
          buildHtpasswd(
            usernames.map((username, i) => ({ username, password: passwords[i] })),
            namespace,
          ),
        ),
      );
      // Rolls the pod when a password changes (zot does not see a Secret update; chart-values.ts). The hash is of the
      // bcrypt lines, which are themselves one-way (cost 10, salt derived by scrypt from the password; htpasswd.ts):
      // testing a guess against it costs a scrypt and a bcrypt, as against the Secret, so it may be plain (unsecret)
      // in the release values and state, and it says no more than that some line changed.
      htpasswdChecksum = pulumi.unsecret(htpasswd.apply((file) => createHash("sha256").update(file).digest("hex")));
      secret = new k8s.core.v1.Secret(
        `${name}-htpasswd`,
        { metadata: { namespace: nsName, labels: LABELS }, type: "Opaque", stringData: pulumi.secret({ htpasswd }) },
        { parent: this, dependsOn, additionalSecretOutputs: ["data", "stringData"] },
      );
    }

    // The volume's size and class cannot change once made: refused at preview (storage-guard.ts).
    const storageGuard = new RegistryStorageGuard(
      `${name}-storage`,
      {
        path: "registry",
        namespace: plan.namespace,
        claimName: plan.claimName,
        storageSize: plan.storageSize,
        storageClass: plan.storageClass,
        ...(args.kubeconfig !== undefined ? { kubeconfig: pulumi.secret(args.kubeconfig) } : {}),
      },
      { parent: this },
    );

    const values = buildChartValues<pulumi.Output<string>>({
      fullname: plan.releaseName,
      storageSize: plan.storageSize,
      storageClass: plan.storageClass,
      configMapName: configMap.metadata.name,
      htpasswdSecretName: secret?.metadata.name,
      configChecksum: plan.configChecksum,
      htpasswdChecksum,
      tls: plan.tls,
      extra: args.values,
    });

    const release = new k8s.helm.v3.Release(
      `${name}-release`,
      {
        name: plan.releaseName,
        // An OCI registry is not a chart repository: Helm takes the chart's full reference instead.
        ...(plan.chartRepository.startsWith("oci://")
          ? { chart: `${plan.chartRepository.replace(/\/+$/, "")}/${CHART_NAME}` }
          : { chart: CHART_NAME, repositoryOpts: { repo: plan.chartRepository } }),
        version: plan.chartVersion,
        namespace: nsName,
        createNamespace: false,
        values,
        timeout: 600,
      },
      { parent: this, dependsOn: [...dependsOn, storageGuard, configMap, ...(secret ? [secret] : [])] },
    );

    this.namespace = nsName;
    this.releaseName = release.name;
    this.serviceName = release.name.apply(() => plan.serviceName);
    this.url = release.name.apply(() => plan.url);
    this.accessCommands = pulumi.output(plan.accessCommands);
    this.registerOutputs({
      namespace: this.namespace,
      releaseName: this.releaseName,
      serviceName: this.serviceName,
      url: this.url,
      accessCommands: this.accessCommands,
    });
  }
}
