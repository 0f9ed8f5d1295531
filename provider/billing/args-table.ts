// The BillingReceiver component's arguments and outputs as a table, for the reference page
// (scripts/reference-docs.ts); test/docs/reference.test.ts holds it to BillingReceiverArgs' keys.
import type { ComponentArgTable } from "../registry/args-table";
import { DEFAULT_PORT, RECEIVER_COMMAND } from "./component";
import { DEFAULT_NOTIFY_PATH } from "./receiver";

export const BILLING_RECEIVER_ARGS: ComponentArgTable = {
  businessUnitId: {
    type: "number",
    required: true,
    doc: "the reseller business unit whose billing data is stored",
    mapsTo: "the receiver's `--bunit` and the Post URL's `bunit=`",
  },
  portal: {
    type: "{ url; origin; clientId; username; password }",
    required: true,
    secret: true,
    doc: "how the receiver reaches the portal; the password is stored only in the Kubernetes Secret and as a secret in the state",
    mapsTo: "the Secret the Deployment reads",
  },
  secret: {
    type: "Input<string>",
    secret: true,
    doc: "shared secret the Post URL carries as `secret=` (at least 8 characters); required when serviceType exposes the receiver",
    mapsTo: "the Secret; the `postUrl` output",
  },
  namespace: { type: "Input<string>", default: "default", doc: "namespace to deploy to (must exist)", mapsTo: "every object's namespace" },
  image: {
    type: "Input<string>",
    required: true,
    doc: "the receiver image pinned by digest, `<registry>/backup-portal-receiver@sha256:<digest>`, built from the package's Dockerfile",
    mapsTo: "the Deployment's container image",
  },
  command: {
    type: "Input<string>[]",
    default: RECEIVER_COMMAND.join(" "),
    doc: "command that starts the receiver in the image; its options are appended",
    mapsTo: "the container's command",
  },
  port: {
    type: "number",
    default: DEFAULT_PORT,
    doc: "container port (1-65535)",
    mapsTo: "the container port and the receiver's `--port`",
  },
  storage: {
    type: '{ kind: "persistentVolumeClaim"; size?; storageClassName? } | { kind: "emptyDir"; sizeLimit? }',
    default: "a 1Gi PersistentVolumeClaim",
    doc: "the output directory's volume",
    mapsTo: "a PersistentVolumeClaim or an emptyDir volume",
  },
  serviceType: {
    type: '"ClusterIP" | "NodePort" | "LoadBalancer"',
    default: "ClusterIP",
    doc: "how the portal reaches the receiver",
    mapsTo: "the Service's type",
  },
  resources: {
    type: "ResourceRequirements",
    default: "requests 50m CPU and 128Mi, limit 512Mi",
    doc: "container resources",
    mapsTo: "the container's resources",
  },
  labels: { type: "Record<string, string>", doc: "extra labels on every object", mapsTo: "every object's labels" },
};

export const BILLING_RECEIVER_OUTPUTS: Record<string, { type: string; doc: string; secret?: boolean }> = {
  namespace: { type: "string", doc: "the namespace" },
  secretName: { type: "string", doc: "the Secret holding the portal credentials and the shared secret" },
  deploymentName: { type: "string", doc: "the Deployment" },
  serviceName: { type: "string", doc: "the Service" },
  claimName: { type: "string | undefined", doc: "the claim of the output directory (undefined with an emptyDir)" },
  notifyUrl: {
    type: "string",
    doc: `the Post URL inside the cluster without the secret (http://<service>.<namespace>.svc.cluster.local${DEFAULT_NOTIFY_PATH}?bunit=<id>)`,
  },
  postUrl: { type: "string", secret: true, doc: "the Post URL to register in the portal, with the secret" },
};
