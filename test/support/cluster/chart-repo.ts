/**
 * TEST CODE — a Helm chart repository on loopback: `index.yaml` and the chart's archive, as a repository served
 * over HTTP answers `helm pull`. It serves the tests' stand-in for the zot chart
 * (test/real-engine/fixtures/charts/zot-test-standin), packed here under the name the Registry component asks for.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { parse, stringify } from "yaml";
import { closeServer, listenLoopback } from "../loopback";

export const STANDIN_CHART_DIR = path.resolve(__dirname, "..", "..", "real-engine", "fixtures", "charts", "zot-test-standin");

export interface ChartRepo {
  url: string;
  /** The paths asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** Packs a chart folder as `helm package` does: a gzipped tar whose one top folder is the chart's name. */
export function packChart(chartDir: string, name: string): Buffer {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "chart-"));
  try {
    const archive = path.join(out, "chart.tgz");
    const parent = path.dirname(chartDir);
    const tar = spawnSync(
      "tar",
      [
        "-czf",
        archive,
        "-C",
        parent,
        "--owner=0",
        "--group=0",
        "--transform",
        `s,^${path.basename(chartDir)},${name},`,
        path.basename(chartDir),
      ],
      { encoding: "utf8" },
    );
    if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr}`);
    return fs.readFileSync(archive);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

export async function startChartRepo(chartDir = STANDIN_CHART_DIR): Promise<ChartRepo> {
  const meta = parse(fs.readFileSync(path.join(chartDir, "Chart.yaml"), "utf8")) as {
    name: string;
    version: string;
    appVersion: string;
    description: string;
  };
  const archive = packChart(chartDir, meta.name);
  const file = `${meta.name}-${meta.version}.tgz`;
  const requests: string[] = [];
  let base = "";
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? "");
    if (req.url === "/index.yaml") {
      const index = {
        apiVersion: "v1",
        entries: {
          [meta.name]: [
            {
              apiVersion: "v2",
              name: meta.name,
              version: meta.version,
              appVersion: meta.appVersion,
              description: meta.description,
              digest: createHash("sha256").update(archive).digest("hex"),
              urls: [`${base}/${file}`],
              created: new Date(0).toISOString(),
            },
          ],
        },
        generated: new Date(0).toISOString(),
      };
      res.writeHead(200, { "content-type": "application/x-yaml" }).end(stringify(index));
    } else if (req.url === `/${file}`) {
      res.writeHead(200, { "content-type": "application/gzip" }).end(archive);
    } else {
      res.writeHead(404).end("not found");
    }
  });
  base = await listenLoopback(server);
  return { url: base, requests, close: () => closeServer(server) };
}
