#!/usr/bin/env node
// The `backup-portal` command. Runs the compiled CLI; from a source checkout
// without a build it falls back to ts-node so `npx backup-portal` works in dev.
const path = require("path");
const fs = require("fs");
const compiled = path.join(__dirname, "..", "dist", "provider", "cli", "main.js");
if (fs.existsSync(compiled)) {
  require(compiled);
} else {
  require("ts-node").register({ transpileOnly: true });
  require(path.join(__dirname, "..", "provider", "cli", "main.ts"));
}
