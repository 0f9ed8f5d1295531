// Pulumi mocks for component tests (registry, billing receiver, stack program).
// setMocks is process-wide state shared with other test files: every suite calls
// installMocks() in its `before`.
import * as pulumi from "@pulumi/pulumi";

/** How secret values reach mocks: wrapped in an object carrying this signature. */
export const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export interface Recorded {
  type: string;
  name: string;
  custom: boolean | undefined;
  inputs: any;
  state: any;
}

export function isSecretValue(v: unknown): boolean {
  return typeof v === "object" && v !== null && (v as Record<string, unknown>)[SECRET_SIG_KEY] === SECRET_SIG;
}

/** The value with every secret replaced by "[secret]": what is left is stored in plain text. */
export function plainPart(v: any): any {
  if (isSecretValue(v)) return "[secret]";
  if (Array.isArray(v)) return v.map(plainPart);
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainPart(x)]));
  return v;
}

/** Whether an Output is secret. */
export function secretOf(o: pulumi.Output<unknown>): Promise<boolean> {
  return (o as unknown as { isSecret: Promise<boolean> }).isSecret;
}

/** Removes the secret wrappers, recursively. */
export function unwrap(v: any): any {
  if (isSecretValue(v)) return unwrap(v.value);
  if (Array.isArray(v)) return v.map(unwrap);
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unwrap(x)]));
  return v;
}

/** Installs mocks that echo inputs as state and auto-name Kubernetes objects like the provider. */
export async function installMocks(): Promise<Recorded[]> {
  const recorded: Recorded[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource(args: pulumi.runtime.MockResourceArgs): pulumi.runtime.MockResourceResult {
        const state = JSON.parse(JSON.stringify(args.inputs ?? {}));
        if (args.type.startsWith("kubernetes:core/v1:") && state.metadata && !state.metadata.name) {
          state.metadata.name = `${args.name}-a1b2c3d4`;
        }
        recorded.push({ type: args.type, name: args.name, custom: args.custom, inputs: args.inputs, state });
        return { id: `${args.name}-id`, state };
      },
      call(args: pulumi.runtime.MockCallArgs) {
        return args.inputs;
      },
    },
    "backup-portal",
    "test",
    false,
  );
  return recorded;
}

/** Resolves an Output's value (known values only, as under mocks outside preview). */
export function valueOf<T>(o: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => o.apply((v) => (resolve(v), v)));
}

/** Waits until the mock monitor has seen the given number of resources whose names start with prefix. */
export async function settle(recorded: Recorded[], prefix: string, count: number, timeoutMs = 10000): Promise<Recorded[]> {
  const start = Date.now();
  for (;;) {
    const mine = recorded.filter((r) => r.name === prefix || r.name.startsWith(prefix + "-"));
    if (mine.length >= count) return mine;
    if (Date.now() - start > timeoutMs) throw new Error(`only ${mine.length}/${count} resources registered for ${prefix}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
