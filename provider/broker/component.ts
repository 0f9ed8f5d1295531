// The registration broker on Kubernetes, beside the billing receiver: a Secret with the reseller's portal
// account and the token secret, a one-replica Deployment that runs `backup-portal registration-broker` from an
// image pinned by digest (nothing is installed at start), and a Service instances reach (behind TLS: an Ingress
// or a load balancer that terminates it).
//
// One replica, always: the broker remembers spent tokens in its ledger file, and two replicas would each accept a
// token once. The file is on a volume: an emptyDir outlives a crashed container, a PersistentVolumeClaim
// (`ledgerClaimName`) also a replaced pod. The image must be given by digest (`<image>@sha256:<64 hex>`): a tag can be moved to other code, which
// would then run with the reseller's credentials.
import * as pulumi from "@pulumi/pulumi";
import type * as K8s from "@pulumi/kubernetes";
import { k8s } from "../kubernetes";
import { kubernetesNamesProblems } from "../rules/kubernetes-names";
import type { ResourceRequirements } from "../resource-requirements";
import { PortalConnectionArgs } from "../billing/component";
import { SECRET_ENV } from "./main";
import { HEALTH_PATH } from "./server";
import { MIN_SECRET_BYTES } from "./token";

export const REGISTRATION_BROKER_TYPE = "backup-portal:broker:RegistrationBroker";
export const DEFAULT_BROKER_PORT = 8443;
/** Where the container keeps its spent-token ledger (the `ledger` volume). */
export const LEDGER_DIR = "/var/lib/registration-broker";
export const LEDGER_FILE = `${LEDGER_DIR}/spent-tokens.json`;
const DIGEST = /^[^\s@]+@sha256:[0-9a-f]{64}$/;

export interface RegistrationBrokerArgs {
  /** The reseller's portal account: stored only in the Kubernetes Secret, and as a secret in the state. */
  portal: PortalConnectionArgs;
  /** The HMAC secret tokens are signed with (at least 32 bytes); the same the stack mints tokens with. */
  secret: pulumi.Input<string>;
  /** An image with this package and `backup-portal` on PATH, by digest: `<repository>@sha256:<64 hex>`. */
  image: string;
  /** Command in the image; default ["backup-portal", "registration-broker"]; `--port`, `--host`, `--ledger-file` are appended. */
  command?: string[];
  /** Namespace (must exist); default "default". */
  namespace?: pulumi.Input<string>;
  port?: number;
  serviceType?: "ClusterIP" | "NodePort" | "LoadBalancer";
  /**
   * A PersistentVolumeClaim in the namespace for the spent-token ledger, so that a replaced pod (an update, a
   * drained node) still refuses the tokens used before. Without it an emptyDir keeps the ledger across container
   * restarts only.
   */
  ledgerClaimName?: pulumi.Input<string>;
  resources?: ResourceRequirements;
  labels?: Record<string, string>;
}

/** Every problem with the arguments, at once (empty when fine). A secret's value is checked when it is known. */
export function registrationBrokerProblems(args: RegistrationBrokerArgs): string[] {
  const p: string[] = [];
  if (!args.portal) p.push("portal (url, origin, clientId, username, password) is required");
  else
    for (const k of ["url", "origin", "clientId", "username", "password"] as const)
      if (args.portal[k] === undefined || args.portal[k] === "") p.push(`portal.${k} is required`);
  if (args.secret === undefined) p.push(`secret is required (at least ${MIN_SECRET_BYTES} bytes)`);
  else if (typeof args.secret === "string" && Buffer.byteLength(args.secret) < MIN_SECRET_BYTES)
    p.push(`secret must have at least ${MIN_SECRET_BYTES} bytes`);
  if (typeof args.image !== "string" || !DIGEST.test(args.image))
    p.push(
      "image must name its digest (<repository>@sha256:<64 hex digits>): a tag can be moved to other code, which would run with the reseller's account",
    );
  const port = args.port ?? DEFAULT_BROKER_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535) p.push(`port must be from 1 to 65535, got ${port}`);
  if (args.serviceType && !["ClusterIP", "NodePort", "LoadBalancer"].includes(args.serviceType))
    p.push("serviceType must be ClusterIP, NodePort or LoadBalancer");
  return p;
}

export class RegistrationBrokerConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid RegistrationBroker arguments: ${problems.join("; ")}`);
    this.name = "RegistrationBrokerConfigError";
  }
}

/** The registration broker deployed to Kubernetes. */
export class RegistrationBroker extends pulumi.ComponentResource {
  public readonly namespace: pulumi.Output<string>;
  public readonly secretName: pulumi.Output<string>;
  public readonly deploymentName: pulumi.Output<string>;
  public readonly serviceName: pulumi.Output<string>;
  /** http://<service>.<namespace>.svc.cluster.local: the broker inside the cluster. */
  public readonly url: pulumi.Output<string>;

  constructor(name: string, args: RegistrationBrokerArgs, opts?: pulumi.ComponentResourceOptions) {
    const problems = [...kubernetesNamesProblems(name, args), ...registrationBrokerProblems(args)];
    if (problems.length) throw new RegistrationBrokerConfigError(problems);
    super(REGISTRATION_BROKER_TYPE, name, {}, opts);
    const port = args.port ?? DEFAULT_BROKER_PORT;
    const namespace = pulumi.output(args.namespace ?? "default");
    const selector = { "app.kubernetes.io/name": "registration-broker", "app.kubernetes.io/instance": name };
    const labels = {
      ...(args.labels ?? {}),
      ...selector,
      "app.kubernetes.io/part-of": "backup-portal",
      "app.kubernetes.io/component": "registration",
    };
    const child = { parent: this };
    // A secret known only at deployment (an Output) is checked when its value is there.
    const brokerSecret = pulumi.output(args.secret).apply((s) => {
      if (Buffer.byteLength(s ?? "") < MIN_SECRET_BYTES)
        throw new RegistrationBrokerConfigError([`secret must have at least ${MIN_SECRET_BYTES} bytes`]);
      return s;
    });
    const secret = new k8s.core.v1.Secret(
      `${name}-portal`,
      {
        metadata: { namespace, labels },
        type: "Opaque",
        stringData: pulumi.secret(
          pulumi.output({ clientId: args.portal.clientId, username: args.portal.username, password: args.portal.password, brokerSecret }),
        ),
      },
      { ...child, additionalSecretOutputs: ["data", "stringData"] },
    );
    const fromSecret = (envName: string, key: string): K8s.types.input.core.v1.EnvVar => ({
      name: envName,
      valueFrom: { secretKeyRef: { name: secret.metadata.name, key } },
    });
    const probe = { httpGet: { path: HEALTH_PATH, port: "http" } };
    const deployment = new k8s.apps.v1.Deployment(
      `${name}-broker`,
      {
        metadata: { namespace, labels },
        spec: {
          replicas: 1, // one ledger of spent tokens: one broker only
          strategy: { type: "Recreate" },
          selector: { matchLabels: selector },
          template: {
            metadata: { labels },
            spec: {
              // fsGroup: the ledger's volume is writable by the broker's user.
              securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 },
              automountServiceAccountToken: false,
              containers: [
                {
                  name: "broker",
                  image: args.image,
                  command: args.command ?? ["backup-portal", "registration-broker"],
                  args: ["--port", String(port), "--host", "0.0.0.0", "--ledger-file", LEDGER_FILE],
                  ports: [{ name: "http", containerPort: port }],
                  env: [
                    { name: "BACKUP_PORTAL_URL", value: args.portal.url },
                    { name: "BACKUP_PORTAL_ORIGIN", value: args.portal.origin },
                    fromSecret("BACKUP_PORTAL_CLIENT_ID", "clientId"),
                    fromSecret("BACKUP_PORTAL_USERNAME", "username"),
                    fromSecret("BACKUP_PORTAL_PASSWORD", "password"),
                    fromSecret(SECRET_ENV, "brokerSecret"),
                    { name: "NODE_ENV", value: "production" },
                  ],
                  readinessProbe: { ...probe, periodSeconds: 10 },
                  livenessProbe: { ...probe, periodSeconds: 30, failureThreshold: 3 },
                  resources: args.resources ?? { requests: { cpu: "50m", memory: "128Mi" }, limits: { memory: "512Mi" } },
                  securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } },
                  volumeMounts: [
                    { name: "tmp", mountPath: "/tmp" },
                    { name: "ledger", mountPath: LEDGER_DIR },
                  ],
                },
              ],
              volumes: [
                { name: "tmp", emptyDir: {} },
                args.ledgerClaimName === undefined
                  ? { name: "ledger", emptyDir: {} }
                  : { name: "ledger", persistentVolumeClaim: { claimName: args.ledgerClaimName } },
              ],
            },
          },
        },
      },
      child,
    );
    const service = new k8s.core.v1.Service(
      `${name}-svc`,
      {
        metadata: { namespace, labels },
        spec: { type: args.serviceType ?? "ClusterIP", selector, ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }] },
      },
      { ...child, dependsOn: [deployment] },
    );
    this.namespace = namespace;
    this.secretName = secret.metadata.name;
    this.deploymentName = deployment.metadata.name;
    this.serviceName = service.metadata.name;
    this.url = pulumi.interpolate`http://${service.metadata.name}.${namespace}.svc.cluster.local`;
    this.registerOutputs({
      namespace: this.namespace,
      secretName: this.secretName,
      deploymentName: this.deploymentName,
      serviceName: this.serviceName,
      url: this.url,
    });
  }
}
