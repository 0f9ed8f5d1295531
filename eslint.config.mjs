// ESLint: typescript-eslint's recommended rules for the TypeScript, Pulumi's own rules (an Output in a
// template literal is a bug: use pulumi.interpolate) with type information, and ESLint's recommended
// rules for the plain JavaScript (bin/, scripts/, .github/scripts/). Formatting is Prettier's job
// (`npm run lint` checks it; `npm run format` applies it).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import pulumi from "@pulumi/eslint-plugin";
import globals from "globals";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "reports/", ".stryker-tmp*/", ".pulumi-local/", ".emulator-data/", "tmp/", "examples/*/bin/"] },
  {
    files: ["**/*.js", "**/*.cjs"],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: "commonjs", globals: { ...globals.node } },
  },
  {
    files: ["**/*.mjs"],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: "module", globals: { ...globals.node } },
  },
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.recommended],
    plugins: { "@pulumi": pulumi },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node, ...globals.mocha },
    },
    rules: {
      "@pulumi/no-output-in-template-literal": "error",
      "@pulumi/no-output-instance-in-template-literal": "error",
      // Dynamic providers receive untyped property bags from the engine, and the provider host must
      // `require` our modules inside each method (a module-level import is serialized by value).
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-require-imports": "off",
      // A `let` that a callback declared earlier reads (a guard timer) cannot be a `const` at its assignment.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
);
