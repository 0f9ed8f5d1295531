// The billing notification receiver on Kubernetes, as an option of a stack: a Secret with the
// portal credentials (and the Post URL secret), a volume for the output directory (a
// PersistentVolumeClaim by default, or an emptyDir), a one-replica Deployment that runs the
// receiver from an image given by digest (built from provider/billing/Dockerfile), and a Service
// the portal posts to. Nothing is installed when the pod starts: whatever ran there would run with
// the reseller's portal password.
import * as pulumi from "@pulumi/pulumi";
import type * as K8s from "@pulumi/kubernetes";
import { k8s } from "../kubernetes";
import { kubernetesNamesProblems } from "../rules/kubernetes-names";
import type { ResourceRequirements } from "../resource-requirements";
import { DEFAULT_NOTIFY_PATH, HEALTH_PATH } from "./receiver";
import { SECRET_ENV } from "./main";
import { receiverSecretProblem } from "./secret";

export { MIN_SECRET_LENGTH, receiverSecretProblem } from "./secret";

export const BILLING_RECEIVER_TYPE = "backup-portal:billing:BillingReceiver";
export const DEFAULT_PORT = 8080;
export const DATA_DIR = "/data";
/** The receiver's entry in the image provider/billing/Dockerfile builds (its ENTRYPOINT). */
export const RECEIVER_COMMAND = ["node", "/app/dist/provider/billing/main.js"];
/** An image reference pinned by digest: `<name>@sha256:<64 hex>` (a tag before the digest is allowed, and ignored by the runtime). */
export const DIGEST_IMAGE = /^[^\s@]+@sha256:[0-9a-f]{64}$/;
const IMAGE_FIX =
  "build the receiver image from this repository (docker build -f provider/billing/Dockerfile -t <registry>/backup-portal-receiver .), " +
  "push it, and set image to <registry>/backup-portal-receiver@sha256:<digest>";

/** Why `image` cannot run the receiver with the portal password; undefined when it is pinned by digest. */
export function receiverImageProblem(image: unknown): string | undefined {
  if (image === undefined || image === "") return `image is required: ${IMAGE_FIX}`;
  if (typeof image !== "string" || !DIGEST_IMAGE.test(image))
    return `image must be pinned by digest (<name>@sha256:<64 hex digits>), got ${JSON.stringify(image)}: a tag can be moved to other code, which would run with the portal password; ${IMAGE_FIX}`;
  return undefined;
}

/**
 * The secret as an Output that fails when the value breaks receiverSecretProblem: a secret from stack config is
 * an Output, known at preview, so the preview reports it (the rule runs on the value, never shows it).
 */
export function checkedSecret(secret: pulumi.Input<string>): pulumi.Output<string> {
  return pulumi.output(secret).apply((s) => {
    const problem = receiverSecretProblem(s);
    if (problem) throw new BillingReceiverConfigError([problem]);
    return s;
  });
}

export interface PortalConnectionArgs {
  url: pulumi.Input<string>;
  origin: pulumi.Input<string>;
  clientId: pulumi.Input<string>;
  username: pulumi.Input<string>;
  /** Stored only in the Kubernetes Secret, and as a secret in the Pulumi state. */
  password: pulumi.Input<string>;
}

export type ReceiverStorage =
  /** A PersistentVolumeClaim (default): the files survive pod restarts and rescheduling. */
  | { kind: "persistentVolumeClaim"; size?: string; storageClassName?: pulumi.Input<string> }
  /** An emptyDir: the files live as long as the pod; for tests or when something else collects them. */
  | { kind: "emptyDir"; sizeLimit?: string };

export interface BillingReceiverArgs {
  /** The reseller business unit whose billing data is stored. */
  businessUnitId: number;
  /** How the receiver reaches the portal. */
  portal: PortalConnectionArgs;
  /** Shared secret the Post URL carries as `secret=` (at least 8 characters, also when it is an Output); none: no secret checked. */
  secret?: pulumi.Input<string>;
  /** Namespace to deploy to (must exist); default "default". */
  namespace?: pulumi.Input<string>;
  /**
   * The receiver image, pinned by digest: `<registry>/backup-portal-receiver@sha256:<digest>`, built from
   * provider/billing/Dockerfile. Required: there is no default that fetches code nobody verified.
   */
  image: pulumi.Input<string>;
  /** Command that starts the receiver in the image; default RECEIVER_COMMAND (the Dockerfile's entry). The receiver's options are appended. */
  command?: pulumi.Input<string>[];
  /** Container port; default 8080. */
  port?: number;
  /** The output directory's volume; default a 1Gi PersistentVolumeClaim. */
  storage?: ReceiverStorage;
  /** Service type; default ClusterIP (the portal must reach the Service: use an Ingress or a LoadBalancer when it is outside the cluster). */
  serviceType?: "ClusterIP" | "NodePort" | "LoadBalancer";
  /** Container resources; default requests 50m CPU and 128Mi, limit 512Mi. */
  resources?: ResourceRequirements;
  /** Extra labels on every object. */
  labels?: Record<string, string>;
}

export class BillingReceiverConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid BillingReceiver arguments: ${problems.join("; ")}`);
    this.name = "BillingReceiverConfigError";
  }
}

const QUANTITY = /^\d+(\.\d+)?(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$/;

/** Every problem with the arguments (empty when they are fine). */
export function billingReceiverProblems(args: BillingReceiverArgs): string[] {
  const p: string[] = [];
  if (!Number.isSafeInteger(args.businessUnitId) || args.businessUnitId < 1)
    p.push(`businessUnitId must be a positive integer, got ${args.businessUnitId}`);
  if (!args.portal) p.push("portal (url, origin, clientId, username, password) is required");
  else
    for (const k of ["url", "origin", "clientId", "username", "password"] as const)
      if (args.portal[k] === undefined || args.portal[k] === "") p.push(`portal.${k} is required`);
  if (typeof args.secret === "string") {
    const secretProblem = receiverSecretProblem(args.secret);
    if (secretProblem) p.push(secretProblem);
  }
  // An Output is checked when it resolves (checkedSecret); a plain value here.
  if (typeof args.image === "string" || args.image === undefined) {
    const imageProblem = receiverImageProblem(args.image);
    if (imageProblem) p.push(imageProblem);
  }
  // The package installed at pod start is gone: refuse it by name rather than ignore it (a JS caller has no type check).
  if ((args as { packageSpec?: unknown }).packageSpec !== undefined)
    p.push(`packageSpec is no longer supported: a package installed when the pod starts is not verified; ${IMAGE_FIX}`);
  const port = args.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535) p.push(`port must be from 1 to 65535, got ${port}`);
  const s = args.storage;
  if (s && s.kind !== "persistentVolumeClaim" && s.kind !== "emptyDir")
    p.push(`storage.kind must be "persistentVolumeClaim" or "emptyDir"`);
  if (s?.kind === "persistentVolumeClaim" && s.size !== undefined && !QUANTITY.test(s.size))
    p.push(`storage.size is not a quantity: ${JSON.stringify(s.size)}`);
  if (s?.kind === "emptyDir" && s.sizeLimit !== undefined && !QUANTITY.test(s.sizeLimit))
    p.push(`storage.sizeLimit is not a quantity: ${JSON.stringify(s.sizeLimit)}`);
  if (args.serviceType && !["ClusterIP", "NodePort", "LoadBalancer"].includes(args.serviceType))
    p.push(`serviceType must be ClusterIP, NodePort or LoadBalancer`);
  // Reachable from outside the cluster, anyone could make it read the portal: the Post URL must carry a secret.
  if (args.serviceType && args.serviceType !== "ClusterIP" && args.secret === undefined) {
    p.push(
      `serviceType ${args.serviceType} exposes the receiver outside the cluster: set secret (at least 8 characters), which the Post URL then carries`,
    );
  }
  return p;
}

/** The container's command and arguments. */
export function receiverCommand(args: BillingReceiverArgs): { command: pulumi.Input<string>[]; args: string[] } {
  const receiverArgs = [
    "--port",
    String(args.port ?? DEFAULT_PORT),
    "--host",
    "0.0.0.0",
    "--out",
    DATA_DIR,
    "--bunit",
    String(args.businessUnitId),
  ];
  return { command: args.command ?? RECEIVER_COMMAND, args: receiverArgs };
}

/** The billing receiver deployed to Kubernetes. */
export class BillingReceiver extends pulumi.ComponentResource {
  public readonly namespace: pulumi.Output<string>;
  public readonly secretName: pulumi.Output<string>;
  public readonly deploymentName: pulumi.Output<string>;
  public readonly serviceName: pulumi.Output<string>;
  /** The claim of the output directory (undefined with an emptyDir). */
  public readonly claimName: pulumi.Output<string | undefined>;
  /** The Post URL inside the cluster without the secret: http://<service>.<namespace>.svc.cluster.local/notify?bunit=<id> */
  public readonly notifyUrl: pulumi.Output<string>;
  /** The Post URL to register in the portal, with the secret (a secret Output). */
  public readonly postUrl: pulumi.Output<string>;

  constructor(name: string, args: BillingReceiverArgs, opts?: pulumi.ComponentResourceOptions) {
    const problems = [...kubernetesNamesProblems(name, args), ...billingReceiverProblems(args)];
    if (problems.length) throw new BillingReceiverConfigError(problems);
    super(BILLING_RECEIVER_TYPE, name, {}, opts);

    const port = args.port ?? DEFAULT_PORT;
    const namespace = pulumi.output(args.namespace ?? "default");
    const selector = { "app.kubernetes.io/name": "billing-receiver", "app.kubernetes.io/instance": name };
    const labels = {
      ...(args.labels ?? {}),
      ...selector,
      "app.kubernetes.io/part-of": "backup-portal",
      "app.kubernetes.io/component": "billing",
    };
    const child = { parent: this };

    // Credentials only ever travel as secrets: stringData is a secret Output, and the outputs
    // that echo it are marked secret too.
    const secretData: Record<string, pulumi.Input<string>> = {
      clientId: args.portal.clientId,
      username: args.portal.username,
      password: args.portal.password,
    };
    const secretValue = args.secret !== undefined ? checkedSecret(args.secret) : undefined;
    if (secretValue) secretData.receiverSecret = secretValue;
    const secret = new k8s.core.v1.Secret(
      `${name}-portal`,
      {
        metadata: { namespace, labels },
        type: "Opaque",
        stringData: pulumi.secret(pulumi.output(secretData)),
      },
      { ...child, additionalSecretOutputs: ["data", "stringData"] },
    );

    const storage: ReceiverStorage = args.storage ?? { kind: "persistentVolumeClaim" };
    let claim: K8s.core.v1.PersistentVolumeClaim | undefined;
    if (storage.kind === "persistentVolumeClaim") {
      claim = new k8s.core.v1.PersistentVolumeClaim(
        `${name}-data`,
        {
          metadata: { namespace, labels },
          spec: {
            accessModes: ["ReadWriteOnce"],
            storageClassName: storage.storageClassName,
            resources: { requests: { storage: storage.size ?? "1Gi" } },
          },
        },
        child,
      );
    }
    const dataVolume: K8s.types.input.core.v1.Volume = claim
      ? { name: "data", persistentVolumeClaim: { claimName: claim.metadata.name } }
      : { name: "data", emptyDir: storage.kind === "emptyDir" && storage.sizeLimit ? { sizeLimit: storage.sizeLimit } : {} };

    const fromSecret = (envName: string, key: string): K8s.types.input.core.v1.EnvVar => ({
      name: envName,
      valueFrom: { secretKeyRef: { name: secret.metadata.name, key } },
    });
    const env: K8s.types.input.core.v1.EnvVar[] = [
      { name: "BACKUP_PORTAL_URL", value: args.portal.url },
      { name: "BACKUP_PORTAL_ORIGIN", value: args.portal.origin },
      fromSecret("BACKUP_PORTAL_CLIENT_ID", "clientId"),
      fromSecret("BACKUP_PORTAL_USERNAME", "username"),
      fromSecret("BACKUP_PORTAL_PASSWORD", "password"),
      ...(args.secret !== undefined ? [fromSecret(SECRET_ENV, "receiverSecret")] : []),
      { name: "NODE_ENV", value: "production" },
    ];
    const cmd = receiverCommand(args);
    const probe = { httpGet: { path: HEALTH_PATH, port: "http" } };

    const deployment = new k8s.apps.v1.Deployment(
      `${name}-receiver`,
      {
        metadata: { namespace, labels },
        spec: {
          replicas: 1, // one writer per output directory
          strategy: { type: "Recreate" }, // the ReadWriteOnce claim cannot be mounted by two pods at once
          selector: { matchLabels: selector },
          template: {
            metadata: { labels },
            spec: {
              securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 },
              containers: [
                {
                  name: "receiver",
                  // A digest, checked here too when the image is an Output.
                  image: pulumi.output(args.image).apply((image) => {
                    const problem = receiverImageProblem(image);
                    if (problem) throw new BillingReceiverConfigError([problem]);
                    return image;
                  }),
                  command: cmd.command,
                  args: cmd.args,
                  ports: [{ name: "http", containerPort: port }],
                  env,
                  volumeMounts: [
                    { name: "data", mountPath: DATA_DIR },
                    { name: "tmp", mountPath: "/tmp" },
                  ],
                  // Readiness and liveness wait for the startup probe.
                  startupProbe: { ...probe, periodSeconds: 5, failureThreshold: 60 },
                  readinessProbe: { ...probe, periodSeconds: 10 },
                  livenessProbe: { ...probe, periodSeconds: 30, failureThreshold: 3 },
                  resources: args.resources ?? { requests: { cpu: "50m", memory: "128Mi" }, limits: { memory: "512Mi" } },
                  securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } },
                },
              ],
              volumes: [dataVolume, { name: "tmp", emptyDir: {} }],
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
        spec: {
          type: args.serviceType ?? "ClusterIP",
          selector,
          ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
        },
      },
      { ...child, dependsOn: [deployment] },
    );

    this.namespace = namespace;
    this.secretName = secret.metadata.name;
    this.deploymentName = deployment.metadata.name;
    this.serviceName = service.metadata.name;
    this.claimName = claim ? claim.metadata.name : pulumi.output(undefined);
    this.notifyUrl = pulumi.interpolate`http://${service.metadata.name}.${namespace}.svc.cluster.local${DEFAULT_NOTIFY_PATH}?bunit=${args.businessUnitId}`;
    this.postUrl = pulumi.secret(
      pulumi.all([this.notifyUrl, secretValue]).apply(([u, s]) => (s ? `${u}&secret=${encodeURIComponent(s)}` : u)),
    );
    this.registerOutputs({
      namespace: this.namespace,
      secretName: this.secretName,
      deploymentName: this.deploymentName,
      serviceName: this.serviceName,
      claimName: this.claimName,
      notifyUrl: this.notifyUrl,
      postUrl: this.postUrl,
    });
  }
}
