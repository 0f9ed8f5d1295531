// The shape of what `pulumi preview --json` prints (the CLI's PreviewDigest, pulumi/pulumi pkg/display/json.go), as
// far as the plan guard and its Markdown report read it, and the parts of a URN.

export interface ResourceState {
  type?: string;
  provider?: string;
  protect?: boolean;
  inputs?: Record<string, unknown>;
}

export interface Step {
  op: string;
  urn: string;
  oldState?: ResourceState;
  newState?: ResourceState;
  /** The top-level inputs that differ (update and replace steps). */
  diffs?: string[];
}

export interface Diagnostic {
  message?: string;
  severity?: string;
  urn?: string;
}

export interface Digest {
  steps: Step[];
  diagnostics?: Diagnostic[];
  changeSummary?: Record<string, number>;
}

/** The URN's parts: urn:pulumi:<stack>::<project>::<qualified type>::<name> (the name may hold "::"). */
export function parseUrn(urn: string): { type: string; name: string } {
  const parts = String(urn).split("::");
  if (parts.length < 4 || !parts[0].startsWith("urn:pulumi:")) return { type: "", name: String(urn) };
  const qualified = parts[2];
  // A child of a component: parent types first, joined by "$".
  return { type: qualified.slice(qualified.lastIndexOf("$") + 1), name: parts.slice(3).join("::") };
}
