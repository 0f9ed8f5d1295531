// Where the dynamic-provider host finds our code at run time.
//
// The engine stores each resource's provider as serialized JavaScript
// (`__provider`) and runs it in a separate host process. Serializing our code
// by value would copy the whole client into every resource's state; instead the
// serialized provider holds only a module specifier and `require`s it in the
// host. The specifier is relative (a package name, or a path relative to the
// host's working directory), so state holds no absolute path of the machine
// that wrote it. The engine runs the program and the host in the folder the
// project's `main` names (`stacks/` here, pkg/engine/project.go), so a source
// checkout's specifier is relative to that folder: `../dist/...`.
import * as fs from "fs";
import * as path from "path";

const PACKAGE_NAME = "backup-portal-pulumi";

/** The nearest of `dir` and the folders above it, up to the root, for which `found` is true. */
function findUp(dir: string, found: (dir: string) => boolean): string | undefined {
  if (found(dir)) return dir;
  const up = path.dirname(dir);
  return up === dir ? undefined : findUp(up, found);
}

const readText = (file: string) => fs.readFileSync(file, "utf8");

/** The folder of this package (its package.json) that `from` lies in: a source checkout, dist/ or an installed package. */
export function packageRoot(from: string): string {
  const root = findUp(path.dirname(from), (dir) => {
    const pkg = path.join(dir, "package.json");
    return fs.existsSync(pkg) && JSON.parse(readText(pkg)).name === PACKAGE_NAME;
  });
  if (!root) throw new Error(`${from} is not inside the ${PACKAGE_NAME} package`);
  return root;
}

/**
 * The folder the engine runs the program and the provider host in: `main` of
 * the Pulumi project around `cwd` when it names a folder (the file's folder
 * when it names a file), else the project's root; `cwd` outside any project.
 * Found from the project, not taken from `cwd`, so a test runner in the root
 * serializes what `pulumi up` in `stacks/` would.
 */
export function programDirectory(cwd: string = process.cwd()): string {
  const dir = findUp(path.resolve(cwd), (d) => fs.existsSync(path.join(d, "Pulumi.yaml")));
  if (!dir) return path.resolve(cwd);
  const main = /^main:[ \t]*["']?([^"'#\r\n]*?)["']?[ \t]*(#.*)?$/m.exec(readText(path.join(dir, "Pulumi.yaml")))?.[1];
  if (!main) return dir;
  const target = path.resolve(dir, main);
  return fs.existsSync(target) && !fs.statSync(target).isDirectory() ? path.dirname(target) : target;
}

const realpath = (p: string) => {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
};

/**
 * Whether the program reaches this package through a node_modules folder (its own or one above it), also when
 * that entry is a symlink to `root` (`npm link`, `npm install <folder>`): Node then loads the package from the
 * link's target, so `__filename` lies outside node_modules, but the package name resolves on every machine.
 */
function reachedThroughNodeModules(root: string, cwd: string): boolean {
  const real = realpath(root);
  const entry = findUp(path.resolve(cwd), (d) => fs.existsSync(path.join(d, "node_modules", PACKAGE_NAME, "package.json")));
  return !!entry && !!real && realpath(path.join(entry, "node_modules", PACKAGE_NAME)) === real;
}

/**
 * The specifier of the compiled module for `filename` (a .ts source file under
 * ts-node, or the .js file in dist/). The host runs plain Node, so it always
 * loads the compiled JavaScript: run `npm run build` before using the providers
 * from a source checkout.
 */
export function moduleSpecifier(filename: string, cwd: string = programDirectory()): string {
  const root = packageRoot(filename);
  const rel = path.relative(root, filename).split(path.sep).join("/");
  const compiled = (rel.startsWith("dist/") ? rel : `dist/${rel}`).replace(/\.[jt]s$/, "");
  const parts = root.split(path.sep);
  if (parts.includes("node_modules") || reachedThroughNodeModules(root, cwd)) return `${PACKAGE_NAME}/${compiled}`;
  const fromCwd = path.relative(cwd, path.join(root, compiled)).split(path.sep).join("/");
  return fromCwd.startsWith(".") ? fromCwd : `./${fromCwd}`;
}
