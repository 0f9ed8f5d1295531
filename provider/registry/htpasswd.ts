// htpasswd lines for zot: `user:$2b$10$<salt><hash>` (bcrypt, which zot accepts with the
// $2a$/$2b$/$2y$ prefixes).
import { scryptSync } from "node:crypto";
import bcrypt from "bcryptjs";
import { setSecretHint } from "../rules/stack-config";

/** bcrypt cost of the generated lines (bcryptjs' default; zot accepts 4–31). */
export const BCRYPT_COST = 10;

/**
 * Why the salt is deterministic, and why it is derived the way it is:
 *
 * A bcrypt hash normally takes a fresh random salt. The htpasswd Secret is recomputed on
 * every `pulumi preview`/`up`, so a random salt would give a different Secret every run: a
 * permanent diff, a replaced Secret and a restarted registry pod, although no password
 * changed. Keeping the old hash would need state we do not have, so the salt is instead a
 * function of the secret inputs: same (namespace, username, password) → same salt → same
 * line; a changed password → a different salt and hash.
 *
 * The salt is stored in clear inside the hash, so it must not make the password easier to
 * find. A fast keyed hash such as HMAC-SHA256(password, username) would reveal nothing
 * without the password, but it would hand an attacker who reads the Secret a *cheap*
 * verifier of password guesses (one HMAC per guess instead of 2^10 bcrypt rounds),
 * defeating bcrypt's work factor. The salt is therefore derived with scrypt, a slow and
 * memory-hard keyed hash (N=2^15, r=8: ~32 MiB and about as slow as the bcrypt step), keyed
 * by the password over a context of the namespace and username: testing a guess against the
 * salt costs at least as much as testing it against the bcrypt hash, and equal passwords of
 * different users or namespaces still get unrelated salts.
 */
export function deterministicSalt(username: string, password: string, namespace: string, cost = BCRYPT_COST): string {
  const context = `backup-portal/zot-htpasswd\0${namespace}\0${username}`;
  const bytes = scryptSync(password, context, 16, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  // 16 bytes → the 22 characters of bcrypt's own base64 alphabet ("./A-Za-z0-9").
  return `$2b$${String(cost).padStart(2, "0")}$${bcrypt.encodeBase64(Array.from(bytes), 16)}`;
}

/** Problems with one username (empty list when fine). */
export function usernameProblems(username: unknown, path: string): string[] {
  if (typeof username !== "string") return [`${path}: must be a string`];
  if (username === "") return [`${path}: must not be empty`];
  const p: string[] = [];
  if (username.includes(":"))
    p.push(`${path}: ${JSON.stringify(username)} contains ":", which separates user and hash in htpasswd; remove it`);
  if (/[\s\x00-\x1f\x7f]/.test(username))
    p.push(`${path}: ${JSON.stringify(username)} contains whitespace or control characters; remove them`);
  return p;
}

/** Problems with a list of usernames: each one valid, and all distinct. */
export function usernamesProblems(usernames: unknown[], path: string): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  usernames.forEach((u, i) => {
    const at = `${path}[${i}].username`;
    problems.push(...usernameProblems(u, at));
    if (typeof u === "string") {
      const first = seen.get(u);
      if (first !== undefined) problems.push(`${at}: ${JSON.stringify(u)} is already used by ${path}[${first}]; usernames must be unique`);
      else seen.set(u, i);
    }
  });
  return problems;
}

/**
 * One htpasswd line. Throws (without ever quoting the password) when the password is empty
 * or longer than bcrypt's 72-byte limit.
 */
export function htpasswdLine(username: string, password: string, namespace: string, cost = BCRYPT_COST): string {
  // In stack config the password is the secret key registryPassword-<user> (or the user's passwordSecretKey).
  const where = `set another with ${setSecretHint(`registryPassword-${username}`)} (or the user's passwordSecretKey)`;
  if (typeof password !== "string" || password === "")
    throw new Error(`registry user ${JSON.stringify(username)}: the password is empty; ${where}`);
  if (bcrypt.truncates(password)) {
    throw new Error(`registry user ${JSON.stringify(username)}: the password is longer than 72 bytes, which bcrypt cannot hash; ${where}`);
  }
  return `${username}:${bcrypt.hashSync(password, deterministicSalt(username, password, namespace, cost))}`;
}

/** The htpasswd file for the given users (one line each, newline-terminated). */
export function buildHtpasswd(users: { username: string; password: string }[], namespace: string, cost = BCRYPT_COST): string {
  return users.map((u) => htpasswdLine(u.username, u.password, namespace, cost) + "\n").join("");
}
