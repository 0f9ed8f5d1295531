// What the docs tell a reader to run exists, as written: each `backup-portal <command>` and its options (the
// commands' own declarations), each `npm run <script>`, each file of the repository they name, the emulator's
// flags, control endpoints and fault settings (both ways: nothing missing from docs/emulator.md, nothing there
// that the emulator lacks), the GitHub checks docs/gitops.md tells to require, the Node.js images, and how long
// the suite takes (scripts/test.js prints it; the README and docs/testing.md say the same).
import { strict as assert } from "assert";
import { existsSync, readdirSync, readFileSync } from "fs";
import { join } from "path";
import * as yaml from "yaml";
import { COMMAND_NAMES, commandSpec, main } from "../../provider/cli/main";
import { controlRouter, type ControlTarget } from "../../emulator/control";
import { FAULT_SETTINGS } from "../../emulator/faults";
import { EMULATOR_FLAGS } from "../../emulator/main";
import { defaultBuildImage } from "../../stacks/fleet/operator";
import { main as fleetMain } from "../../stacks/fleet/main";
import { linesWithCode, markdownFiles, read, ROOT } from "./markdown";

const testScript = require("../../scripts/test.js") as { SUITE_MINUTES: number; REAL_ENGINE_MINUTES: number };

/** What a reader copies: each line of a fenced block (not TypeScript, YAML or JSON) and each inline code span. */
export function snippets(markdown: string): Array<{ text: string; line: number }> {
  const out: Array<{ text: string; line: number }> = [];
  const lines = linesWithCode(markdown);
  for (const l of lines) {
    if (l.code && !/^\s*(```|~~~)/.test(l.text) && !/^(ts|typescript|ya?ml|json|go|python|py)$/.test(l.lang ?? "")) {
      out.push({ text: l.text, line: l.line });
    }
  }
  const prose = lines.map((l) => (l.code ? "" : l.text)).join("\n");
  for (const m of prose.matchAll(/`([^`]+)`/g))
    out.push({ text: m[1].replace(/\s+/g, " "), line: prose.slice(0, m.index).split("\n").length });
  return out;
}

/** The command a snippet runs, with its words up to a pipe, `;`, `&&` or a comment. */
function invocations(text: string, program: RegExp): Array<{ name: string; words: string[] }> {
  const out: Array<{ name: string; words: string[] }> = [];
  for (const m of text.matchAll(program)) {
    const rest = text.slice(m.index! + m[0].length).split(/\s(?:\||;|&&|#)\s|\s#/)[0];
    out.push({ name: m[1], words: rest.split(/\s+/).filter(Boolean) });
  }
  return out;
}

/** Mistakes the docs make on purpose, to show what the command answers. */
const DELIBERATE = ["backup-portal regster", "backup-portal jobs --consumr"];

/** The problems of `backup-portal ...` in one snippet: an unknown command, an option the command does not declare. */
export function commandProblems(where: string, text: string): string[] {
  if (DELIBERATE.some((d) => text.includes(d))) return [];
  const problems: string[] = [];
  for (const { name, words } of invocations(text, /(?<![\w-])backup-portal\s+([a-z][\w-]*)(?![\w:-])/g)) {
    if (name === "help") continue;
    if (!COMMAND_NAMES.includes(name)) {
      problems.push(`${where}: backup-portal ${name}: no such command`);
      continue;
    }
    const options = commandSpec(name).options;
    for (const w of words) {
      const flag = /^--([a-z][a-z0-9-]*)(=|$)/.exec(w)?.[1];
      if (!flag || flag === "help") continue;
      const negated = flag.startsWith("no-") ? flag.slice(3) : undefined;
      const known =
        Object.hasOwn(options, flag) || (negated !== undefined && Object.hasOwn(options, negated) && !!options[negated].negation);
      if (!known) problems.push(`${where}: backup-portal ${name} --${flag}: the command has no such option`);
    }
  }
  return problems;
}

/** `npm run <script>` names a script of the package.json the page belongs to. */
function npmProblems(where: string, text: string, scripts: Record<string, string>): string[] {
  return [...text.matchAll(/\bnpm run(?:\s+--?[\w-]+)*\s+([a-z][\w:-]*)/g)]
    .filter((m) => !Object.hasOwn(scripts, m[1]))
    .map((m) => `${where}: npm run ${m[1]}: no such script`);
}

/**
 * Files of the repository (`stacks/...`, `docs/...`) a command names that do not exist. Placeholders and globs are
 * left alone, and so is a path into another project (`sdk/go/...` of Pulumi's): its folder is not one of ours.
 */
export function missingPaths(where: string, text: string, exists: (rel: string) => boolean): string[] {
  const found = text.matchAll(
    /(?<![\w./-])((?:stacks|docs|scripts|test|provider|examples|emulator|bin|sdk|bench|tools|\.github)\/[^\s`'"()[\]{}<>,;|*]+)/g,
  );
  return [...found]
    .map((m) => m[1].replace(/[.:]+$/, ""))
    .filter((p) => /\.[a-z]{1,4}$/.test(p) && !/[<>*$]/.test(p))
    .filter((p) => p.split("/").length === 2 || exists(p.split("/").slice(0, 2).join("/")))
    .filter((p) => !exists(p))
    .map((p) => `${where}: ${p} does not exist`);
}

/** The versions of this package (its tarball, its plugin, a dependency on it) that a text names, in order. */
function packageVersionsNamed(text: string): string[] {
  const V = String.raw`(\d+\.\d+\.\d+(?:-[\w.]+)?)`;
  const spellings = [
    String.raw`backup-portal-(?:pulumi|backupportal)-${V}\.tgz`,
    String.raw`resource backupportal ${V}\b`,
    String.raw`pulumi-resource-backupportal-v${V}`,
    String.raw`"(?:backup-portal-pulumi|@backup-portal/backupportal)": "[\^~]?${V}"`,
  ];
  const any = new RegExp(spellings.join("|"), "g");
  return [...text.matchAll(any)].map((m) => m.slice(1).find((g) => g !== undefined)!);
}

describe("docs: what they tell a reader to run exists", function () {
  this.timeout(60_000);
  const files = markdownFiles();
  const scriptsOf = (file: string): Record<string, string> => {
    const own = file.match(/^examples\/[^/]+\//)?.[0];
    const pkg = own && existsSync(join(ROOT, own, "package.json")) ? join(ROOT, own, "package.json") : join(ROOT, "package.json");
    return (JSON.parse(readFileSync(pkg, "utf8")) as { scripts?: Record<string, string> }).scripts ?? {};
  };

  it("every backup-portal command and option the docs show is one the CLI declares", () => {
    const problems = files.flatMap((f) => snippets(read(f)).flatMap((s) => commandProblems(`${f}:${s.line}`, s.text)));
    assert.deepEqual(problems, []);
  });

  it("`backup-portal <command> --help` runs (exit 0, its usage) for every command the docs name", async () => {
    const named = new Set(
      files.flatMap((f) =>
        snippets(read(f)).flatMap((s) =>
          DELIBERATE.some((d) => s.text.includes(d))
            ? []
            : invocations(s.text, /(?<![\w-])backup-portal\s+([a-z][\w-]*)(?![\w:-])/g).map((i) => i.name),
        ),
      ),
    );
    assert.ok(named.has("doctor") && named.has("export"), [...named].join(", "));
    named.delete("help");
    for (const name of named) {
      let out = "";
      const code = await main([name, "--help"], { out: (t) => (out += t), err: (t) => (out += t) });
      assert.equal(code, 0, `backup-portal ${name} --help: ${out}`);
      assert.match(out, new RegExp(`usage: backup-portal ${name}\\b`), out);
    }
  });

  it("every npm run names a script, and every repository file the docs name exists", () => {
    const problems = files.flatMap((f) => {
      const text = read(f);
      return [
        ...snippets(text).flatMap((s) => npmProblems(`${f}:${s.line}`, s.text, scriptsOf(f))),
        // In what a reader runs: a command's line, not a path named in prose.
        ...snippets(text)
          .filter((s) => /\s/.test(s.text.trim()))
          .flatMap((s) => missingPaths(`${f}:${s.line}`, s.text, (p) => existsSync(join(ROOT, p)))),
      ];
    });
    assert.deepEqual(problems, []);
  });

  it("the checks find a wrong command, option, script and path (they are not blind)", () => {
    assert.deepEqual(commandProblems("x", "npx backup-portal exprot --out a.yaml"), ["x: backup-portal exprot: no such command"]);
    assert.deepEqual(commandProblems("x", "npx backup-portal export --nope --no-progress --out=a.yaml | head"), [
      "x: backup-portal export --nope: the command has no such option",
    ]);
    assert.deepEqual(commandProblems("x", "backup-portal doctor --no-json # --nope"), [
      "x: backup-portal doctor --no-json: the command has no such option",
    ]);
    assert.deepEqual(commandProblems("x", "backup-portal:url and backup-portal-pulumi"), []);
    assert.deepEqual(npmProblems("x", "npm run --silent biuld", { build: "" }), ["x: npm run biuld: no such script"]);
    const ours = (p: string) => p === "stacks/fleet";
    assert.deepEqual(
      missingPaths("x", "--config stacks/fleet/nope.yaml, stacks/Pulumi.<stack>.yaml, stacks/Pulumi.*-g*.yaml sdk/go/x.go", ours),
      ["x: stacks/fleet/nope.yaml does not exist"],
    );
  });

  it("the fleet commands the docs show that need no Pulumi CLI (groups, operator) run as written", async () => {
    const shown = files.flatMap((f) =>
      snippets(read(f))
        .filter((s) => /\bstacks\/fleet\/main\.ts\s.*\s(groups|operator)(\s|$)/.test(s.text) && !/[<>]|\.\.\./.test(s.text))
        .map((s) => ({
          where: `${f}:${s.line}`,
          argv: s.text
            .replace(/^.*?stacks\/fleet\/main\.ts\s+/, "")
            .split(/\s(?:\||#)/)[0]
            .split(/\s+/),
        })),
    );
    assert.ok(shown.length >= 1, "the docs show a fleet groups command");
    for (const { where, argv } of shown) {
      const err: string[] = [];
      const code = await fleetMain(argv, { out: () => undefined, err: (l) => err.push(l) });
      assert.equal(code, 0, `${where}: ${argv.join(" ")}: ${err.join("\n")}`);
    }
  });

  it("docs/emulator.md shows every flag of the emulator, and every flag the docs give it exists", () => {
    const page = read("docs/emulator.md");
    const usage = page.slice(page.indexOf("npm run emulator -- --port 0"), page.indexOf("# portal emulator listening"));
    const shown = [...usage.matchAll(/--[a-z][\w-]*/g)].map((m) => m[0]);
    assert.deepEqual([...new Set(shown)].sort(), [...EMULATOR_FLAGS].sort());
    const known = (flag: string) => EMULATOR_FLAGS.includes(flag);
    const used = files.flatMap((f) =>
      snippets(read(f)).flatMap((s) =>
        invocations(s.text, /\bnpm run emulator\b()/g).flatMap(({ words }) =>
          words.filter((w) => /^--[a-z]/.test(w) && !known(w.split("=")[0])).map((w) => `${f}:${s.line}: npm run emulator ${w}`),
        ),
      ),
    );
    assert.deepEqual(used, []);
  });

  it("docs/emulator.md lists every control endpoint and every fault setting, and nothing else", () => {
    const page = read("docs/emulator.md");
    const documented = [...page.matchAll(/^\| `((?:GET|POST|PUT|DELETE) \/_emulator\/[^`]+)` \|/gm)].map((m) => m[1]);
    assert.deepEqual(
      [...documented].sort(),
      controlRouter({} as ControlTarget)
        .list()
        .sort(),
    );
    const faults = page.slice(page.indexOf("The body of `POST /_emulator/faults`"));
    const fields = [...faults.slice(0, faults.indexOf("```")).matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
    assert.deepEqual([...fields].sort(), [...FAULT_SETTINGS].sort());
  });

  it("docs/gitops.md names test.yml's checks as GitHub shows them, and no other Node.js version for them", () => {
    const workflow = yaml.parse(readFileSync(join(ROOT, ".github/workflows/test.yml"), "utf8")) as {
      jobs: Record<string, { name: string; strategy: { matrix: { node: number[] } } }>;
    };
    const job = Object.values(workflow.jobs)[0];
    const checks = job.strategy.matrix.node.map((n) => job.name.replace("${{ matrix.node }}", String(n)));
    assert.ok(checks.length >= 2 && checks.every((c) => /^npm test \(Node \d+\)$/.test(c)), checks.join(", "));
    const page = read("docs/gitops.md");
    for (const c of checks) assert.ok(page.includes(`\`${c}\``), `docs/gitops.md does not name the check ${c}`);
    const row = page.split("\n").find((l) => l.startsWith("| `.github/workflows/test.yml`"))!;
    const named = [...row.matchAll(/Node(?:\.js)? (\d+)/g)].map((m) => Number(m[1]));
    assert.deepEqual(
      named.filter((n) => !job.strategy.matrix.node.includes(n)),
      [],
      row,
    );
  });

  it("every node:<version> image in the docs is the supported one the operator's build uses", () => {
    const image = defaultBuildImage();
    assert.match(image, /^node:\d+$/);
    const other = files.flatMap((f) =>
      read(f)
        .split("\n")
        .flatMap((l, i) => [...l.matchAll(/\bimage: (node:[\w.-]+)/g)].filter((m) => m[1] !== image).map((m) => `${f}:${i + 1}: ${m[1]}`)),
    );
    assert.deepEqual(other, []);
  });

  it("every version of this package the docs and examples install is package.json's, so a release bump cannot leave one behind", () => {
    const { version } = JSON.parse(read("package.json")) as { version: string };
    const examples = readdirSync(join(ROOT, "examples")).filter((d) => existsSync(join(ROOT, "examples", d, "package.json")));
    const texts: Array<[string, string]> = [
      ...files.map((f): [string, string] => [f, read(f)]),
      ...examples.map((d): [string, string] => [`examples/${d}/package.json`, read(`examples/${d}/package.json`)]),
    ];
    const named = texts.flatMap(([f, text]) => packageVersionsNamed(text).map((v) => `${f}: ${v}`));
    assert.ok(named.length >= 10, `the tarballs, plugin installs and dependencies are found (${named.length})`);
    assert.deepEqual(
      named.filter((n) => !n.endsWith(`: ${version}`)),
      [],
    );
    // Not blind: each spelling of another version is found.
    const other =
      "npm install ../../backup-portal-pulumi-9.1.0.tgz; pulumi plugin install resource backupportal 9.1.1 --file x;" +
      ' pulumi-resource-backupportal-v9.1.2.tar.gz "@backup-portal/backupportal": "^9.1.3", "backup-portal-pulumi": "^9.1.4"';
    assert.deepEqual(packageVersionsNamed(other), ["9.1.0", "9.1.1", "9.1.2", "9.1.3", "9.1.4"]);
  });

  it("the README and docs/testing.md say how long the suite takes, as npm test's first line does", () => {
    const { SUITE_MINUTES, REAL_ENGINE_MINUTES } = testScript;
    for (const f of ["README.md", "docs/testing.md"]) {
      const text = read(f).replace(/\s+/g, " ");
      assert.ok(text.includes(`about ${SUITE_MINUTES} minutes on 2 cores`), `${f}: the suite's ${SUITE_MINUTES} minutes`);
      assert.ok(
        new RegExp(`real-engine tier[^.]*about ${REAL_ENGINE_MINUTES}\\b`).test(text),
        `${f}: the real-engine tier's ${REAL_ENGINE_MINUTES}`,
      );
    }
  });
});
