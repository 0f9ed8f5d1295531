// A command run in this process with its output captured: what the CLI's in-process tests assert on.

export interface Captured {
  code: number;
  out: string;
  err: string;
}

/** Runs `start` with writers that collect stdout and stderr; resolves the exit code and both texts. */
export async function captured(start: (io: { out(text: string): void; err(text: string): void }) => Promise<number>): Promise<Captured> {
  const c = { out: "", err: "" };
  const code = await start({
    out: (t) => {
      c.out += t;
    },
    err: (t) => {
      c.err += t;
    },
  });
  return { code, ...c };
}
