// The stack file as the Pulumi CLI reads it: a Go program on gopkg.in/yaml.v3 (test/support/yaml-v3/), built once
// into the git-ignored .tools/bin/ and rebuilt when its sources are newer. Without Go, every caller fails with one
// line saying so: a test that needs this reader never passes without it.
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const SOURCE = path.join(ROOT, "test/support/yaml-v3");
const BINARY = path.join(ROOT, ".tools/bin/yaml-v3-read");
const GO_CANDIDATES = ["go", "/usr/local/go/bin/go"];
/** A build fetches yaml.v3 from the module proxy at most once; a cold one takes half a minute on 2 cores. */
const BUILD_TIMEOUT_MS = 300_000;
const READ_TIMEOUT_MS = 30_000;

/** What the CLI hands the program: each scalar as Go's %v text (null stays null), maps and lists as they are. */
export type GoValue = string | null | GoValue[] | { [key: string]: GoValue };

export interface GoRead {
  values: GoValue;
  /** The same tree with each scalar's Go type: string, int, float64, bool, time.Time, <nil>. */
  types: GoValue;
}

export class GoReadError extends Error {}

function findGo(): string {
  for (const go of GO_CANDIDATES) {
    if (spawnSync(go, ["version"], { stdio: "ignore", timeout: 10_000 }).status === 0) return go;
  }
  throw new Error(
    "the Go YAML reader (test/support/yaml-v3) needs Go 1.22 or newer: none on PATH nor at /usr/local/go/bin/go; install it from https://go.dev/dl/",
  );
}

const newest = (dir: string) => Math.max(...fs.readdirSync(dir).map((f) => fs.statSync(path.join(dir, f)).mtimeMs));

let built = false;
/** The reader's path, built when missing or older than its sources. */
export function yamlV3Binary(): string {
  if (built) return BINARY;
  if (!fs.existsSync(BINARY) || fs.statSync(BINARY).mtimeMs < newest(SOURCE)) {
    const go = findGo();
    fs.mkdirSync(path.dirname(BINARY), { recursive: true });
    try {
      execFileSync(go, ["build", "-o", BINARY, "."], {
        cwd: SOURCE,
        env: { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=mod -buildvcs=false" },
        stdio: ["ignore", "ignore", "pipe"],
        timeout: BUILD_TIMEOUT_MS,
      });
    } catch (e) {
      const stderr = String((e as { stderr?: Buffer }).stderr ?? "")
        .trim()
        .split("\n")[0];
      throw new Error(`building the Go YAML reader (go build in test/support/yaml-v3) failed: ${stderr || (e as Error).message}`);
    }
  }
  built = true;
  return BINARY;
}

/** Reads YAML text as the Pulumi CLI does; throws GoReadError with the reader's message when it refuses the text. */
export function readWithYamlV3(text: string): GoRead {
  const r = spawnSync(yamlV3Binary(), ["-types", "-"], { input: text, encoding: "utf8", timeout: READ_TIMEOUT_MS });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new GoReadError(r.stderr.trim());
  return JSON.parse(r.stdout) as GoRead;
}
