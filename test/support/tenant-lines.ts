// Stack-file text of many typical tenants, for the tests of how much config one stack holds: each tenant a business
// unit with two consumers (web, db), each with a node.

/**
 * The YAML lines of `n` tenants as entries under `backup-portal:tenants:` (indented four spaces). With
 * `passwordSecrets`, each node names its password secret `pw<consumer><i>`.
 */
export function tenantLines(n: number, opts: { passwordSecrets?: boolean } = {}): string[] {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push(
      `    tenant-${i}:`,
      `      name: Tenant ${i} AB`,
      `      registrationNumber: "556000-${i}"`,
      "      timeZone: W. Europe Standard Time",
      "      consumers:",
    );
    for (const c of ["web", "db"]) {
      lines.push(
        `        ${c}:`,
        `          name: ${c}.tenant-${i}.example`,
        "          node:",
        "            operatingSystem: Linux",
        "            type: File server",
        "            domain: STANDARD",
        "            cpuCount: 2",
        `            tsmName: T${i}-${c.toUpperCase()}`,
      );
      if (opts.passwordSecrets) lines.push(`            passwordSecret: pw${c}${i}`);
    }
  }
  return lines;
}
