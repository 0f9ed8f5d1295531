// Where the plugin and its SDKs are published (provider/plugin/distribution.ts): the schema's pluginDownloadURL,
// the SDKs' metadata and the release's asset names all derive from package.json's repository, so they agree by
// construction; this checks each reader of that one place, and the release script's tarballs. That the Pulumi CLI
// itself fetches those assets from that URL is test/real-engine/sdks.test.ts (the TypeScript case).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  githubRepository,
  goImportBasePath,
  goModulePath,
  PLUGIN_PLATFORMS,
  pluginAssetName,
  pluginDownloadUrl,
  repository,
} from "../../provider/plugin/distribution";
import { packageSchema } from "../../provider/plugin/schema";
import { currentSdk, goMod, parseArgs } from "../../scripts/gen-sdk";
import { pluginAssets, repositoryProblem } from "../../scripts/release-assets";

const ROOT = path.join(__dirname, "..", "..");
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));

describe("the plugin's distribution: one repository for the download URL, the SDKs and the release assets", () => {
  it("reads the repository from package.json (a GitHub URL or the github: shorthand), and refuses anything else in one line", () => {
    assert.deepEqual(githubRepository("git+https://github.com/acme/portal-pulumi.git"), { owner: "acme", name: "portal-pulumi" });
    assert.deepEqual(githubRepository({ type: "git", url: "https://github.com/acme/portal.pulumi" }), {
      owner: "acme",
      name: "portal.pulumi",
    });
    assert.deepEqual(githubRepository("github:acme/x"), { owner: "acme", name: "x" });
    assert.throws(
      () => githubRepository({ url: "https://gitlab.com/acme/x.git" }),
      /^Error: package\.json: repository: \{"url":"https:\/\/gitlab\.com\/acme\/x\.git"\} is not a GitHub repository \(github\.com\/<owner>\/<name>\)$/,
    );
    assert.throws(() => githubRepository(undefined), /repository: undefined is not a GitHub repository/);
    assert.deepEqual(repository(), githubRepository(pkg.repository));
  });

  it("the schema sends the CLI to the GitHub releases of that repository, and the SDK generators to its import path and version", async () => {
    const { owner, name } = githubRepository(pkg.repository);
    const schema = (await packageSchema("1.2.3")) as any;
    // The form the CLI reads as a GitHub source (plugins.go newGithubSource: github://<host>/<owner>/<repo>).
    assert.equal(schema.pluginDownloadURL, `github://api.github.com/${owner}/${name}`);
    assert.equal(schema.repository, `https://github.com/${owner}/${name}`);
    assert.deepEqual(schema.language.go, { importBasePath: `github.com/${owner}/${name}/sdk/go/backupportal`, respectSchemaVersion: true });
    assert.equal(goImportBasePath(), `${goModulePath()}/backupportal`);
    for (const lang of ["nodejs", "python", "go", "csharp"]) assert.equal(schema.language[lang].respectSchemaVersion, true, lang);
  });

  it("the docs and the example name the URL the schema has", () => {
    for (const file of [
      "docs/plugin.md",
      "examples/yaml-tenants/README.md",
      "examples/yaml/Pulumi.yaml",
      "examples/yaml-tenants/Pulumi.yaml",
    ]) {
      const urls = fs.readFileSync(path.join(ROOT, file), "utf8").match(/github:\/\/[^\s`)]+/g) ?? [];
      assert.ok(urls.length > 0, `${file} names the download URL`);
      for (const url of urls) assert.equal(url, pluginDownloadUrl(), file);
    }
  });

  it("the TypeScript SDK names the plugin's source where the CLI and the runtime read it (package.json pulumi.server, the resource defaults)", async () => {
    const sdk = await currentSdk();
    const sdkPkg = JSON.parse(sdk.get("package.json")!);
    assert.deepEqual(sdkPkg.pulumi, { resource: true, name: "backupportal", version: pkg.version, server: pluginDownloadUrl() });
    // npm provenance compares this with the publishing repository.
    assert.deepEqual(sdkPkg.repository, {
      type: "git",
      url: `git+https://github.com/${repository().owner}/${repository().name}.git`,
      directory: "sdk/nodejs",
    });
    assert.ok(
      sdk.get("utilities.ts")!.includes(`return { version: getVersion(), pluginDownloadURL: ${JSON.stringify(pluginDownloadUrl())} };`),
      "every resource's options carry the download URL",
    );
  });

  it("the Go SDK's go.mod: the module of the import path, the Go SDK and semver at the pinned CLI's versions", () => {
    const pins = fs.readFileSync(path.join(ROOT, "tools", "pulumi-cli", "go.mod"), "utf8");
    const pinned = (m: string) => new RegExp(`^\\s*${m.replace(/\./g, "\\.")} (v\\S+)`, "m").exec(pins)![1];
    assert.equal(
      goMod(),
      `module ${goModulePath()}\n\ngo ${/^go (\S+)$/m.exec(pins)![1]}\n\nrequire (\n` +
        `\tgithub.com/blang/semver ${pinned("github.com/blang/semver")}\n` +
        `\tgithub.com/pulumi/pulumi/sdk/v3 ${pinned("github.com/pulumi/pulumi/sdk/v3")}\n)\n`,
    );
    assert.match(goMod(), /\tgithub\.com\/pulumi\/pulumi\/sdk\/v3 v3\.\d+\.\d+\n/);
  });

  it("gen-sdk's command line: a known language, and one line with the usage otherwise", () => {
    assert.deepEqual(parseArgs(["--language", "go", "--out", "/tmp/x", "--archive", "/tmp/a"]), {
      language: "go",
      out: "/tmp/x",
      archive: "/tmp/a",
    });
    assert.equal(parseArgs([]).out, path.join(ROOT, "sdk"));
    assert.throws(() => parseArgs(["--language", "dotnet"]), /^Error: gen-sdk: --language dotnet: one of nodejs, python, go$/);
    assert.throws(() => parseArgs(["--out"]), /^Error: gen-sdk: --out: usage: gen-sdk \[--language nodejs\|python\|go\]/);
  });

  describe("the release's plugin assets (scripts/release-assets.ts)", () => {
    let dir: string;
    before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "release-assets-"))));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("one tarball under the name the CLI asks each platform for, the executable at its root", () => {
      const plugin = path.join(dir, "plugin");
      fs.mkdirSync(path.join(plugin, "dist"), { recursive: true });
      fs.writeFileSync(path.join(plugin, "pulumi-resource-backupportal"), "#!/usr/bin/env node\n", { mode: 0o755 });
      fs.writeFileSync(path.join(plugin, "dist", "main.js"), "");
      const files = pluginAssets(plugin, path.join(dir, "assets"), "1.2.3");
      assert.deepEqual(
        files.map((f) => path.basename(f)),
        PLUGIN_PLATFORMS.map(([os, arch]) => `pulumi-resource-backupportal-v1.2.3-${os}-${arch}.tar.gz`),
      );
      assert.deepEqual(fs.readdirSync(path.join(dir, "assets")).sort(), files.map((f) => path.basename(f)).sort());
      assert.equal(pluginAssetName("1.2.3", "linux", "amd64"), "pulumi-resource-backupportal-v1.2.3-linux-amd64.tar.gz");
      for (const f of files) {
        const listed = spawnSync("tar", ["-tzf", f], { encoding: "utf8" });
        assert.equal(listed.status, 0, listed.stderr);
        assert.deepEqual(listed.stdout.split("\n").filter(Boolean).sort(), [
          "./",
          "./dist/",
          "./dist/main.js",
          "./pulumi-resource-backupportal",
        ]);
      }
      assert.throws(
        () => pluginAssets(path.join(dir, "assets"), path.join(dir, "x"), "1.2.3"),
        /holds no pulumi-resource-backupportal at its root/,
      );
    });

    it("refuses a release made in another repository than the one the schema sends the CLI to", () => {
      const { owner, name } = repository();
      assert.equal(repositoryProblem(undefined), undefined, "outside a workflow: nothing to compare");
      assert.equal(repositoryProblem(`${owner}/${name}`), undefined);
      assert.equal(repositoryProblem(`${owner.toUpperCase()}/${name}`), undefined, "GitHub names ignore case");
      assert.equal(
        repositoryProblem("someone/fork"),
        `release-assets: this release is made in someone/fork, but package.json's repository is ${owner}/${name}, where the ` +
          "schema's pluginDownloadURL sends the Pulumi CLI; set package.json's repository to https://github.com/someone/fork",
      );
    });
  });
});
