// A log-log line chart as SVG, for the scale bench: one line per series, decade grid lines, the values at the points.
// Text in it is the bench's own (series and axis names), escaped all the same.

export interface Series {
  name: string;
  points: Array<[x: number, y: number]>;
  /** A colour of its own (else the next of the palette) and a dash pattern (SVG stroke-dasharray). */
  colour?: string;
  dash?: string;
}

export interface Chart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
}

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];
const W = 640;
const H = 400;
const M = { left: 70, right: 170, top: 40, bottom: 50 };

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Powers of ten from below `lo` to above `hi`. */
function decades(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(10 ** e);
  return out;
}

const label = (v: number) => (v >= 1000 ? `${v / 1000}k` : String(Number(v.toPrecision(3))));

/** The chart as an SVG document. Series without points are left out; no points at all gives an empty frame. */
export function logLogSvg(c: Chart): string {
  const pts = c.series.flatMap((s) => s.points).filter(([x, y]) => x > 0 && y > 0);
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const [xLo, xHi] = xs.length ? [Math.min(...xs) / 1.3, Math.max(...xs) * 1.3] : [1, 10];
  const [yLo, yHi] = ys.length ? [Math.min(...ys) / 1.5, Math.max(...ys) * 1.5] : [1, 10];
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const px = (x: number) => M.left + ((Math.log10(x) - Math.log10(xLo)) / (Math.log10(xHi) - Math.log10(xLo))) * pw;
  const py = (y: number) => M.top + ph - ((Math.log10(y) - Math.log10(yLo)) / (Math.log10(yHi) - Math.log10(yLo))) * ph;
  const f = (n: number) => n.toFixed(1);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${escape(c.title)}</text>`,
  ];
  // Grid: the decades and, on x, each size measured.
  for (const y of decades(yLo, yHi).filter((v) => v >= yLo && v <= yHi)) {
    out.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${f(py(y))}" y2="${f(py(y))}" stroke="#ddd"/>`);
    out.push(`<text x="${M.left - 6}" y="${f(py(y) + 4)}" text-anchor="end">${label(y)}</text>`);
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    out.push(`<line x1="${f(px(x))}" x2="${f(px(x))}" y1="${M.top}" y2="${M.top + ph}" stroke="#ddd"/>`);
    out.push(`<text x="${f(px(x))}" y="${M.top + ph + 16}" text-anchor="middle">${label(x)}</text>`);
  }
  out.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#888"/>`);
  out.push(`<text x="${M.left + pw / 2}" y="${H - 12}" text-anchor="middle">${escape(c.xLabel)}</text>`);
  out.push(`<text transform="translate(16 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">${escape(c.yLabel)}</text>`);
  c.series
    .filter((s) => s.points.some(([x, y]) => x > 0 && y > 0))
    .forEach((s, i) => {
      const colour = s.colour ?? COLOURS[i % COLOURS.length];
      const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : "";
      const ps = s.points.filter(([x, y]) => x > 0 && y > 0).sort((a, b) => a[0] - b[0]);
      out.push(
        `<polyline fill="none" stroke="${colour}" stroke-width="2"${dash} points="${ps.map(([x, y]) => `${f(px(x))},${f(py(y))}`).join(" ")}"/>`,
      );
      for (const [x, y] of ps) out.push(`<circle cx="${f(px(x))}" cy="${f(py(y))}" r="3" fill="${colour}"/>`);
      const ly = M.top + 10 + i * 16;
      out.push(
        `<line x1="${W - M.right + 12}" x2="${W - M.right + 32}" y1="${ly}" y2="${ly}" stroke="${colour}" stroke-width="2"${dash}/>`,
      );
      out.push(`<text x="${W - M.right + 38}" y="${ly + 4}">${escape(s.name)}</text>`);
    });
  out.push("</svg>");
  return out.join("\n") + "\n";
}

/**
 * The growth exponent k of y ≈ a·x^k: the least-squares slope of log y on log x. Undefined with fewer than two
 * distinct sizes.
 */
export function growthExponent(points: Array<[number, number]>): number | undefined {
  const ps = points.filter(([x, y]) => x > 0 && y > 0).map(([x, y]) => [Math.log(x), Math.log(y)]);
  if (new Set(ps.map((p) => p[0])).size < 2) return undefined;
  const mx = ps.reduce((a, p) => a + p[0], 0) / ps.length;
  const my = ps.reduce((a, p) => a + p[1], 0) / ps.length;
  const sxy = ps.reduce((a, p) => a + (p[0] - mx) * (p[1] - my), 0);
  const sxx = ps.reduce((a, p) => a + (p[0] - mx) ** 2, 0);
  return sxy / sxx;
}
