/**
 * TEST CODE — the `encryptionsalt` of a stack config file as the Pulumi CLI's passphrase secrets provider
 * makes and checks it (pulumi/pulumi pkg/secrets/passphrase/manager.go and sdk/go/common/resource/config/crypt.go
 * at 1b59498): `v1:<base64 of an 8-byte salt>:` followed by the word "pulumi" encrypted as every secret value
 * is, `v1:<base64 of a 12-byte nonce>:<base64 of AES-256-GCM ciphertext with its 16-byte tag>`, under the key
 * PBKDF2-SHA256(passphrase, salt, 1,000,000 iterations, 32 bytes).
 *
 * Making one: `npx ts-node -T -e 'console.log(require("./test/stacks/passphrase").passphraseState("local"))'`.
 */
import * as crypto from "node:crypto";

const ITERATIONS = 1_000_000;
const KEY_BYTES = 32;
const SALT_BYTES = 8;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** What the CLI encrypts to check a passphrase. */
const PROBE = "pulumi";

function keyFor(passphrase: string, salt: Buffer): Buffer {
  return crypto.pbkdf2Sync(passphrase, salt, ITERATIONS, KEY_BYTES, "sha256");
}

export function passphraseState(
  passphrase: string,
  salt = crypto.randomBytes(SALT_BYTES),
  nonce = crypto.randomBytes(NONCE_BYTES),
): string {
  const cipher = crypto.createCipheriv("aes-256-gcm", keyFor(passphrase, salt), nonce);
  const sealed = Buffer.concat([cipher.update(PROBE, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `v1:${salt.toString("base64")}:v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
}

/** Whether `passphrase` unlocks `state`, as the CLI decides it: the probe decrypts to "pulumi". Throws on a malformed state. */
export function unlocks(state: string, passphrase: string): boolean {
  const parts = state.split(":");
  if (parts.length !== 5 || parts[0] !== "v1" || parts[2] !== "v1") throw new Error(`not a v1 passphrase state: ${state}`);
  const [salt, nonce, sealed] = [parts[1], parts[3], parts[4]].map((b) => Buffer.from(b, "base64"));
  if (nonce.length !== NONCE_BYTES || sealed.length < TAG_BYTES) throw new Error(`malformed passphrase state: ${state}`);
  const decipher = crypto.createDecipheriv("aes-256-gcm", keyFor(passphrase, salt), nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString("utf8") === PROBE;
  } catch {
    return false; // the tag does not verify: another passphrase
  }
}
