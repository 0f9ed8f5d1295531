// Where the dynamic-provider host finds our code at run time.
//
// The engine stores each resource's provider as serialized JavaScript
// (`__provider`) and runs it in a separate host process. Serializing our code
// by value would copy the whole client into every resource's state; instead the
// serialized provider holds only a module specifier and `require`s it in the
// host. The specifier is relative (a package name, or a path relative to the
// program's working directory, which is also the host's: the folder of
// Pulumi.yaml `main`, so `../dist/...` from stacks/), so state holds no
// absolute path of the machine that wrote it.
import * as fs from "fs";
import * as path from "path";

const PACKAGE_NAME = "backup-portal-pulumi";

function packageRoot(from: string): string {
  let dir = path.dirname(from);
  for (let i = 0; i < 10; i++) {
    const pkg = path.join(dir, "package.json");
    if (fs.existsSync(pkg) && JSON.parse(fs.readFileSync(pkg, "utf8")).name === PACKAGE_NAME) return dir;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new Error(`${from} is not inside the ${PACKAGE_NAME} package`);
}

/**
 * The specifier of the compiled module for `filename` (a .ts source file under
 * ts-node, or the .js file in dist/). The host runs plain Node, so it always
 * loads the compiled JavaScript: run `npm run build` before using the providers
 * from a source checkout.
 */
export function moduleSpecifier(filename: string, cwd: string = process.cwd()): string {
  const root = packageRoot(filename);
  const rel = path.relative(root, filename).split(path.sep).join("/");
  const compiled = (rel.startsWith("dist/") ? rel : `dist/${rel}`).replace(/\.ts$/, ".js").replace(/\.js$/, "");
  const parts = root.split(path.sep);
  if (parts.includes("node_modules")) return `${PACKAGE_NAME}/${compiled}`;
  const fromCwd = path.relative(cwd, path.join(root, compiled)).split(path.sep).join("/");
  return fromCwd.startsWith(".") ? fromCwd : `./${fromCwd}`;
}
