// Preloaded with `node --require` by test/cli/node-support.test.ts: the process reports the Node.js version in
// FAKE_NODE_VERSION, as a process run by that version would (process.versions is read-only: it is replaced whole).
"use strict";
const node = process.env.FAKE_NODE_VERSION;
if (node) Object.defineProperty(process, "versions", { value: Object.freeze({ ...process.versions, node }), configurable: true });
