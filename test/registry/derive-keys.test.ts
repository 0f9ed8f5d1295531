// The derivation script's parsers on small source trees written to a temporary directory.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { deriveChartKeys, deriveZotKeys } from "../../scripts/derive-zot-keys";
import { lowerCamel } from "../../scripts/zot-keys/go-structs";
import { openSource } from "../../scripts/zot-keys/source";
import { chartKeyPaths, zotKeyPaths } from "../../provider/registry";

function writeTree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "derive-keys-"));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

describe("registry: scripts/derive-zot-keys.ts", () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it("chart: values.yaml keys plus template references, through with, range, variables and index", () => {
    const root = writeTree({
      "charts/zot/Chart.yaml": "name: zot\nversion: 9.9.9\nappVersion: v9.9.9\n",
      "charts/zot/values.yaml": "a:\n  b: 1\nlist: []\nm: {}\nflag: false\n",
      "charts/zot/templates/t.yaml": [
        "{{- with .Values.a }}{{ .c }}{{ end }}",
        "{{- range .Values.list }}{{ .name }}{{- range .ports }}{{ .port }}{{ end }}{{ end }}",
        "{{- range $k, $v := .Values.m }}{{ $k }}: {{ $v }}{{ end }}",
        "{{- $x := .Values.v }}{{ $x.w }}",
        "resources: {{ toYaml .Values.res | nindent 2 }}",
        '{{ index .Values "t" "u" }}',
        "{{- with .Values.o }}{{ toYaml . }}{{ else }}{{ $.Values.d.e }}{{ end }}",
        '{{ .Release.Name }} {{ include "zot.fullname" . }} {{ if .Values.flag }}x{{ end }}',
      ].join("\n"),
    });
    dirs.push(root);
    const data = deriveChartKeys(openSource(root));
    assert.equal(data.source.version, "9.9.9");
    assert.equal(data.source.commit, "unknown");
    assert.deepEqual(chartKeyPaths(data.keys), [
      "a",
      "a.b",
      "a.c",
      "d",
      "d.e",
      "flag",
      "list",
      "list[].name",
      "list[].ports",
      "list[].ports[].port",
      "m",
      "o",
      "res",
      "t",
      "t.u",
      "v",
      "v.w",
    ]);
    assert.equal(data.keys.m.open, true, "a map iterated with $k, $v holds free names");
    assert.equal(data.keys.res.open, true, "toYaml renders Kubernetes fields");
    assert.equal(data.keys.o.open, true, "toYaml . inside with");
    assert.equal(data.keys.a.open, undefined);
    assert.equal(data.keys.a.keys!.b.default, "integer");
    assert.deepEqual(data.keys.a.keys!.c.sources, ["t.yaml"]);
    assert.deepEqual(data.keys.flag.sources, ["t.yaml", "values.yaml"]);
  });

  it("zot: exported fields by mapstructure name, squash, skipped and unexported fields, imports, named types", () => {
    const root = writeTree({
      "go.mod": "module example.com/m\n\ngo 1.22\n",
      "pkg/api/config/config.go": [
        "package config",
        "",
        "import (",
        '\t"time"',
        "",
        '\text "example.com/m/pkg/ext"',
        ")",
        "",
        "type Base struct {",
        '\tEnable *bool `mapstructure:",omitempty"`',
        "}",
        "",
        "// Config is the root; a `backtick` in a comment and braces { } do not matter.",
        "type Config struct {",
        "\tName    string",
        "\tGCDelay time.Duration // applied to blobs",
        '\tHidden  string `mapstructure:"-"`',
        "\tprivate int",
        "\tExt     *ext.Conf",
        '\tTagged  []string `json:"x" mapstructure:"renamed,omitempty"`',
        "\t/* block */ Nums map[string]int",
        "\tA, B    bool",
        '\tBase    `mapstructure:",squash"`',
        "}",
      ].join("\n"),
      "pkg/api/config/config_test.go": "package config\n\ntype Config struct { Bogus string }\n",
      "pkg/ext/ext.go": [
        "package ext",
        "",
        'import "time"',
        "",
        "type (",
        "\tNames []string",
        "\tConf  struct {",
        "\t\tURLs    Names",
        "\t\tTimeout *time.Duration",
        "\t\tExtra   map[string]any",
        "\t}",
        ")",
      ].join("\n"),
    });
    dirs.push(root);
    const data = deriveZotKeys(openSource(root));
    assert.equal(data.source.module, "example.com/m");
    assert.deepEqual(zotKeyPaths(data.config), [
      "a",
      "b",
      "enable",
      "ext",
      "ext.extra",
      "ext.timeout",
      "ext.urls",
      "gcDelay",
      "name",
      "nums",
      "renamed",
    ]);
    const keys = (data.config as { keys: Record<string, { type: string; field: string }> }).keys;
    assert.equal(keys.gcDelay.type, "duration");
    assert.equal(keys.gcDelay.field, "GCDelay");
    assert.equal(keys.renamed.type, "list");
    assert.equal(keys.nums.type, "map");
    assert.equal(keys.enable.type, "bool");
  });

  it("a bare repository needs a ref, and a checkout refuses one", () => {
    const root = writeTree({ "x.txt": "x" });
    dirs.push(root);
    assert.throws(() => openSource(root, "v1.0.0"), /is a checkout/);
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), "derive-keys-bare-"));
    dirs.push(bare);
    execFileSync("git", ["init", "--quiet", "--bare", bare]);
    assert.throws(() => openSource(bare), /is a bare repository: give the ref/);
  });

  it("zot's documented spelling of Go field names", () => {
    const cases: [string, string][] = [
      ["RootDirectory", "rootDirectory"],
      ["GCDelay", "gcDelay"],
      ["HTTP", "http"],
      ["DBRepository", "dbRepository"],
      ["JavaDBRepository", "javaDBRepository"],
      ["URLs", "urls"],
      ["SBOM", "sbom"],
      ["APIKey", "apiKey"],
    ];
    for (const [go, key] of cases) assert.equal(lowerCamel(go), key, go);
  });
});
