// Node passwords: random, from characters every backup server and shell accepts.
import { randomBytes } from "crypto";

/**
 * Letters, digits and `_ - + .`: all allowed in IBM Storage Protect passwords,
 * and none needs quoting in a shell or an option file.
 */
export const NODE_PASSWORD_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+.";

export const NODE_PASSWORD_LENGTH = 32;

const CLASSES = [/[A-Z]/, /[a-z]/, /[0-9]/, /[_\-+.]/];

/**
 * A random node password (crypto.randomBytes, unbiased: bytes beyond the last
 * whole multiple of the alphabet are dropped) with at least one upper-case
 * letter, lower-case letter, digit and symbol, so it meets a server's
 * complexity rules. 32 characters carry about 190 bits.
 */
export function generateNodePassword(length = NODE_PASSWORD_LENGTH): string {
  if (!Number.isInteger(length) || length < 8 || length > 64) throw new RangeError(`node password length must be 8 to 64, got ${length}`);
  const n = NODE_PASSWORD_ALPHABET.length;
  const limit = 256 - (256 % n);
  // Each try misses a class with probability below 0.2; 200 tries never all miss in practice.
  for (let attempt = 0; attempt < 200; attempt++) {
    let out = "";
    for (let round = 0; round < 16 && out.length < length; round++) {
      for (const b of randomBytes(length * 2)) {
        if (b < limit) out += NODE_PASSWORD_ALPHABET[b % n];
        if (out.length === length) break;
      }
    }
    if (out.length === length && CLASSES.every((c) => c.test(out))) return out;
  }
  throw new Error("could not generate a node password (random source failing?)");
}
