// A zot registry in its own namespace: two users (passwords from secret config, stored only
// hashed), a 200Gi volume on the "fast" storage class, CVE scanning off for an air-gapped cluster,
// and a longer garbage-collection delay in zot's config.json.
import * as pulumi from "@pulumi/pulumi";
import { Registry } from "backup-portal-pulumi/registry";

const config = new pulumi.Config();

const registry = new Registry("zot", {
  namespace: "registry",
  storageSize: "200Gi",
  storageClass: "fast",
  users: [
    { username: "ci", password: config.requireSecret("ciPassword") },
    { username: "reader", password: config.requireSecret("readerPassword") },
  ],
  cve: { enabled: false },
  config: { storage: { gcDelay: "2h" } },
  values: { resources: { requests: { cpu: "250m", memory: "512Mi" } } },
});

export const url = registry.url;
export const accessCommands = registry.accessCommands;
