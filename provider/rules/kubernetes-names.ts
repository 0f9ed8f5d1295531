// What the Kubernetes API server accepts as a name, a label and a label value (k8s.io/apimachinery's
// validation, as kube-apiserver v1.34 applies it), and the names the components derive from their own: checked at
// preview, at the argument's key, instead of being refused by the API server halfway through an `up`.

/** A DNS-1123 label: a namespace's name. */
export const DNS_1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A DNS-1035 label: a Service's name (it must start with a letter). */
export const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** A DNS-1123 subdomain: most objects' names (ConfigMaps, Secrets, Deployments, StorageClasses). */
export const DNS_1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

export const MAX_LABEL = 63;
export const MAX_SUBDOMAIN = 253;
/** Helm refuses a longer release name. */
export const MAX_HELM_RELEASE = 53;
/**
 * A StatefulSet's pods carry `controller-revision-hash: <name>-<hash of up to 10 characters>`, a label value of at most 63: a
 * longer StatefulSet name is accepted, and then, for a template whose hash has 10 characters, no pod is ever made (the
 * test cluster showed it with 53).
 */
export const MAX_STATEFULSET_NAME = MAX_LABEL - 11;
/** The kubernetes provider auto-names an object `<name>-<8 hex characters>` (pkg/metadata/naming.go). */
export const AUTO_NAME_SUFFIX = 9;

/** Why `value` is not a namespace name, or undefined. */
export function namespaceProblem(value: string): string | undefined {
  if (value.length > MAX_LABEL || !DNS_1123_LABEL.test(value))
    return `${JSON.stringify(value)} is not a namespace name: lowercase letters, digits and '-', starting and ending with a letter or digit, at most ${MAX_LABEL}`;
  return undefined;
}

/** Why `value` is not a Service's name (a DNS-1035 label of at most `max`), or undefined. */
export function serviceNameProblem(value: string, max = MAX_LABEL): string | undefined {
  if (value.length > max || !DNS_1035_LABEL.test(value))
    return `${JSON.stringify(value)} cannot name a Service: lowercase letters, digits and '-', starting with a letter and ending with a letter or digit, at most ${max}`;
  return undefined;
}

/** Why `value` is not a label value, or undefined. */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > MAX_LABEL || !LABEL_VALUE.test(value))
    return `${JSON.stringify(value)} is not a label value: at most ${MAX_LABEL} letters, digits, '-', '_' or '.', starting and ending with a letter or digit (or empty)`;
  return undefined;
}

/** Why `key` is not a label key (`[prefix/]name`, the prefix a DNS subdomain), or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const nameOk = name.length > 0 && name.length <= MAX_LABEL && LABEL_NAME.test(name);
  const prefixOk = prefix === undefined || (prefix.length > 0 && prefix.length <= MAX_SUBDOMAIN && DNS_1123_SUBDOMAIN.test(prefix));
  if (nameOk && prefixOk) return undefined;
  return `${JSON.stringify(key)} is not a label key: [a DNS subdomain prefix/]a name of at most ${MAX_LABEL} letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
}

/** Every problem of a map of labels, each at `<at>.<key>`. */
export function labelsProblems(labels: unknown, at: string): string[] {
  if (labels === undefined) return [];
  if (typeof labels !== "object" || labels === null || Array.isArray(labels)) return [`${at}: must be a map of label keys to values`];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(labels)) {
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) problems.push(`${at}: ${keyProblem}`);
    if (typeof value !== "string") problems.push(`${at}.${key}: must be a string`);
    else {
      const valueProblem = labelValueProblem(value);
      if (valueProblem) problems.push(`${at}.${key}: ${valueProblem}`);
    }
  }
  return problems;
}

/**
 * Why a component's Pulumi name cannot name what it makes, or undefined: it is the `app.kubernetes.io/instance`
 * label, and the start of auto-named objects, the longest of them a Service `<name>-<part>-<8 characters>`.
 */
export function componentNameProblem(name: string, longestPart: string): string | undefined {
  const max = MAX_LABEL - longestPart.length - 1 - AUTO_NAME_SUFFIX;
  if (name.length > max || !DNS_1035_LABEL.test(name))
    return (
      `the component's name ${JSON.stringify(name)} names its Kubernetes objects (a Service "${name}-${longestPart}-<8 characters>" among them): ` +
      `use lowercase letters, digits and '-', starting with a letter, at most ${max} characters`
    );
  return undefined;
}

/**
 * The problems of what the billing receiver and the registration broker name in Kubernetes: the component's own
 * name (its Service is `<name>-svc-<8 characters>`), a namespace given as text, and the extra labels.
 */
export function kubernetesNamesProblems(name: string, args: { namespace?: unknown; labels?: unknown }): string[] {
  const problems: string[] = [];
  const nameProblem = componentNameProblem(name, "svc");
  if (nameProblem) problems.push(nameProblem);
  if (typeof args.namespace === "string") {
    const nsProblem = namespaceProblem(args.namespace);
    if (nsProblem) problems.push(`namespace: ${nsProblem}`);
  }
  problems.push(...labelsProblems(args.labels, "labels"));
  return problems;
}
