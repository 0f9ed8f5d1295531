// The registry's volume, guarded at preview. zot's chart makes the volume from a StatefulSet's
// volumeClaimTemplates, which the API server never lets change: a new storageSize or storageClass would pass the
// preview (the Helm release's preview does not ask the API server) and fail halfway through `up`, with the release
// left failed. This resource holds the size and class the volume was made with; its check, which the engine runs
// at preview with the values in state, refuses a change at its key, with what to do instead.
import type * as pulumi from "@pulumi/pulumi";
import { DynamicResource } from "../dynamic/resource";
import { serializedProvider } from "../dynamic/provider";
import { moduleSpecifier } from "../dynamic/specifier";
import { storageClassProblem } from "./storage-class-check";

export interface StorageGuardInputs {
  /** Where the problem is reported: `registry` for the stack's block. */
  path: string;
  namespace: string;
  claimName: string;
  storageSize: string;
  storageClass: string;
  /** The cluster's kubeconfig (a secret), to check at preview that the class exists; never kept in the outputs. */
  kubeconfig?: string;
}

/** What the volume was made with: the outputs, and all a diff compares (the kubeconfig may change freely). */
const KEPT = ["path", "namespace", "claimName", "storageSize", "storageClass"] as const;
const kept = (inputs: StorageGuardInputs) => Object.fromEntries(KEPT.map((k) => [k, inputs[k]]));

/** Why the volume cannot become `news`, or undefined; the way to grow it in its place. */
export function storageChangeProblems(olds: Partial<StorageGuardInputs>, news: StorageGuardInputs): { property: string; reason: string }[] {
  const problems: { property: string; reason: string }[] = [];
  const volume = `claim ${news.claimName} in namespace ${news.namespace}`;
  if (olds.storageSize !== undefined && olds.storageSize !== news.storageSize) {
    problems.push({
      property: "storageSize",
      reason:
        `${news.path}.storageSize: the registry's volume was made with ${olds.storageSize} and cannot become ${news.storageSize}: ` +
        "the chart's StatefulSet makes it from volumeClaimTemplates, which Kubernetes never lets change. " +
        `Keep storageSize: ${olds.storageSize}. To grow the volume, expand its ${volume} ` +
        `(kubectl -n ${news.namespace} patch pvc ${news.claimName} -p '{"spec":{"resources":{"requests":{"storage":"${news.storageSize}"}}}}'), ` +
        "which works where its StorageClass has allowVolumeExpansion: true",
    });
  }
  if (olds.storageClass !== undefined && olds.storageClass !== news.storageClass) {
    problems.push({
      property: "storageClass",
      reason:
        `${news.path}.storageClass: the registry's volume was made in class ${JSON.stringify(olds.storageClass)} and cannot move to ` +
        `${JSON.stringify(news.storageClass)}: volumeClaimTemplates never change. Keep storageClass: ${JSON.stringify(olds.storageClass)}, ` +
        `or copy the data to a new registry (another releaseName or namespace) and remove this one`,
    });
  }
  return problems;
}

/** The dynamic provider: a check against the values in state; create and update only record them. */
export const storageGuardProvider: pulumi.dynamic.ResourceProvider = {
  async check(olds: Partial<StorageGuardInputs>, news: StorageGuardInputs) {
    const failures = storageChangeProblems(olds, news);
    // A class is read only for a volume still to be made: one that exists has its class already.
    if (olds.storageClass === undefined && news.kubeconfig !== undefined) {
      const missing = await storageClassProblem(news.kubeconfig, news.storageClass, news.path);
      if (missing) failures.push({ property: "storageClass", reason: missing });
    }
    return { inputs: news, failures };
  },
  async diff(_id: string, olds: Partial<StorageGuardInputs>, news: StorageGuardInputs) {
    return { changes: KEPT.some((k) => olds[k] !== news[k]) };
  },
  async create(inputs: StorageGuardInputs) {
    return { id: `${inputs.namespace}/${inputs.claimName}`, outs: kept(inputs) };
  },
  async update(_id: string, _olds: StorageGuardInputs, news: StorageGuardInputs) {
    return { outs: kept(news) };
  },
};

const providerText = serializedProvider(moduleSpecifier(__filename), "storageGuardProvider");

export class RegistryStorageGuard extends DynamicResource {
  constructor(
    name: string,
    inputs: Omit<StorageGuardInputs, "kubeconfig"> & { kubeconfig?: pulumi.Input<string> },
    opts?: pulumi.CustomResourceOptions,
  ) {
    super(providerText, name, { ...inputs }, opts, "registry", "StorageGuard");
  }
}
