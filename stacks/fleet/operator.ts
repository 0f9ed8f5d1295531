// The Pulumi Kubernetes Operator alternative to runFleet: one `Stack` custom
// resource (pulumi.com/v1) per group. The operator clones the repository,
// sets the stack's config from `spec.config`, and runs `pulumi up` whenever the
// branch moves (and on every resync). Secrets never appear in a manifest: the
// portal password and the Pulumi token come from Kubernetes Secrets through
// `spec.envRefs`, node passwords through `spec.secretsRef`.
import * as fs from "fs";
import * as path from "path";
import { packageRoot } from "../../provider/dynamic/specifier";
import { ConfigMap, PASSWORD_KEY, referencedSecrets, shortStackName, tenantsOf, yaml } from "./config";
import { stackNameOf } from "./run";

/** The build's image: Node.js at the oldest major the package supports (package.json `engines`, `^22 || ^24`: node:22). */
export function defaultBuildImage(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot(__filename), "package.json"), "utf8")) as { engines: { node: string } };
  return `node:${/\d+/.exec(pkg.engines.node)![0]}`;
}

export interface SecretKeyRef {
  name: string;
  key: string;
}

export interface OperatorRepo {
  /** The git repository holding this project (`spec.projectRepo`). */
  url: string;
  /** Branch to track (default "main"); ignored when `commit` is set. */
  branch?: string;
  /** A fixed commit to deploy instead of tracking a branch. */
  commit?: string;
  /** Directory of Pulumi.yaml in the repository (default: the root). */
  repoDir?: string;
  /** Stack names are `<stackPrefix>-<group>`, as with runFleet (e.g. `acme/prod`). */
  stackPrefix: string;
  /** Namespace of the Stack resources (default "pulumi"). */
  namespace?: string;
  /** ServiceAccount of the workspace pods. */
  serviceAccountName?: string;
  /** The Secret with PULUMI_ACCESS_TOKEN (default pulumi-api-secret/accessToken); `false` for a self-managed backend. */
  accessToken?: SecretKeyRef | false;
  /** A self-managed backend (`spec.backend`), e.g. s3://bucket; then `passphrase` or a KMS secrets provider is needed. */
  backend?: string;
  /** The Secret with PULUMI_CONFIG_PASSPHRASE, for a passphrase-encrypted self-managed backend. */
  passphrase?: SecretKeyRef;
  /** The Secret with the portal password, passed as BACKUP_PORTAL_PASSWORD (default backup-portal/password). */
  portalPassword?: SecretKeyRef;
  /** The Secret holding the node passwords, one key per `passwordSecret` name (default "backup-portal-node-passwords"). */
  nodePasswordsSecret?: string;
  /** Resync (and branch polling) period in seconds (default 600). */
  resyncFrequencySeconds?: number;
  /**
   * The dynamic providers load compiled code from dist/, which the operator's `pulumi install` does not
   * build: an extra init container runs `npm ci && npm run build` in the fetched workspace. Its image
   * (default: Node.js at the oldest supported major, `defaultBuildImage()`), or `false` to leave it out (e.g. when dist/ comes some other way).
   */
  buildImage?: string | false;
}

export type Manifest = Record<string, unknown>;

/** A DNS-1123 name for a Stack resource: `acme/prod` + `g03` → `backup-portal-prod-g03`. */
export function operatorResourceName(stackPrefix: string, group: string): string {
  const base = `backup-portal-${shortStackName(stackNameOf(stackPrefix, group))}`;
  const name = base
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, "-")
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
  return name.slice(0, 253).replace(/[^a-z0-9]+$/, "");
}

const labelValue = (v: string) =>
  v
    .replace(/[^A-Za-z0-9_.-]/g, "-")
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "");

function secretRef(ref: SecretKeyRef): Manifest {
  return { type: "Secret", secret: { name: ref.name, key: ref.key } };
}

/**
 * One `pulumi.com/v1` Stack per group, sorted by group. `groups` are the groups' configs (from
 * fleetStackConfig): plain values go to `spec.config`; secret values never do. The portal password
 * comes from `portalPassword` as an environment variable, and each node password the group's tenants
 * name from `nodePasswordsSecret` through `spec.secretsRef`. `destroyOnFinalize` is false: deleting a
 * Stack resource must not delete tenants.
 */
export function operatorStacks(groups: Record<string, ConfigMap>, repo: OperatorRepo): Manifest[] {
  if (!repo.url) throw new Error("operatorStacks: repo.url (the git repository of this project) is required");
  if (!repo.stackPrefix) throw new Error("operatorStacks: repo.stackPrefix (e.g. acme/prod) is required");
  const names = new Map<string, string>();
  const out: Manifest[] = [];
  for (const group of Object.keys(groups).sort()) {
    const cfg = groups[group];
    const name = operatorResourceName(repo.stackPrefix, group);
    const clash = names.get(name);
    if (clash !== undefined) throw new Error(`groups "${clash}" and "${group}" give the same resource name "${name}"; rename one`);
    names.set(name, group);

    const config: Record<string, string> = {};
    for (const [key, v] of Object.entries(cfg)) if (!v.secret) config[key] = v.value;

    const envRefs: Record<string, Manifest> = {};
    const access = repo.accessToken === undefined ? { name: "pulumi-api-secret", key: "accessToken" } : repo.accessToken;
    if (access) envRefs.PULUMI_ACCESS_TOKEN = secretRef(access);
    if (repo.passphrase) envRefs.PULUMI_CONFIG_PASSPHRASE = secretRef(repo.passphrase);
    envRefs.BACKUP_PORTAL_PASSWORD = secretRef(repo.portalPassword ?? { name: "backup-portal", key: "password" });

    const nodeSecret = repo.nodePasswordsSecret ?? "backup-portal-node-passwords";
    const secretKeys = new Set([
      ...referencedSecrets(tenantsOf(cfg)),
      ...Object.entries(cfg)
        .filter(([k, v]) => v.secret && k !== PASSWORD_KEY)
        .map(([k]) => k),
    ]);
    const secretsRef: Record<string, Manifest> = {};
    for (const key of [...secretKeys].sort()) secretsRef[key] = secretRef({ name: nodeSecret, key: key.slice(key.indexOf(":") + 1) });

    const spec: Record<string, unknown> = {
      stack: stackNameOf(repo.stackPrefix, group),
      projectRepo: repo.url,
      ...(repo.commit ? { commit: repo.commit } : { branch: repo.branch ?? "main" }),
      ...(repo.repoDir ? { repoDir: repo.repoDir } : {}),
      ...(repo.backend ? { backend: repo.backend } : {}),
      ...(repo.serviceAccountName ? { serviceAccountName: repo.serviceAccountName } : {}),
      refresh: true,
      destroyOnFinalize: false,
      resyncFrequencySeconds: repo.resyncFrequencySeconds ?? 600,
      config,
      envRefs,
      ...(Object.keys(secretsRef).length ? { secretsRef } : {}),
    };
    const buildImage = repo.buildImage === undefined ? defaultBuildImage() : repo.buildImage;
    if (buildImage) {
      spec.workspaceTemplate = {
        spec: {
          podTemplate: {
            spec: {
              initContainers: [
                {
                  name: "build",
                  image: buildImage,
                  workingDir: "/share/workspace",
                  command: ["sh", "-c", "npm ci --no-audit --no-fund && npm run build"],
                  env: [
                    { name: "npm_config_cache", value: "/tmp/.npm" },
                    { name: "HOME", value: "/tmp" },
                  ],
                  securityContext: {
                    runAsNonRoot: true,
                    runAsUser: 1000,
                    allowPrivilegeEscalation: false,
                    capabilities: { drop: ["ALL"] },
                  },
                  volumeMounts: [{ name: "share", mountPath: "/share" }],
                },
              ],
            },
          },
        },
      };
    }
    out.push({
      apiVersion: "pulumi.com/v1",
      kind: "Stack",
      metadata: {
        name,
        namespace: repo.namespace ?? "pulumi",
        labels: { "app.kubernetes.io/part-of": "backup-portal", "backup-portal/fleet-group": labelValue(group) },
      },
      spec,
    });
  }
  return out;
}

/** The manifests as one multi-document YAML (for `kubectl apply -f -`). */
export function manifestsYaml(manifests: Manifest[]): string {
  return manifests.map((m) => yaml.dump(m, { lineWidth: -1, noRefs: true })).join("---\n");
}
