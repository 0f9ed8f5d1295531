// Shell words for the commands this package prints or writes (registration boot scripts, registry access
// commands): what a POSIX shell reads back is exactly the value, whatever it holds, and nothing runs.

/** A POSIX shell word: as it is when plainly safe, else single-quoted (a quote inside becomes '\''). */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
