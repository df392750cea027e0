// Preload for Node 20: the MCP conformance suite (@modelcontextprotocol/conformance
// 0.1.16) imports fs.globSync, which Node added in 22. Registered with
//   node --import ./globsync.mjs conformance/dist/index.js ...
// it resolves the suite's `fs` to fs-globsync.mjs, which re-exports node:fs and
// adds globSync. On Node 22 and later it does nothing.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') {
  register('./globsync-hooks.mjs', import.meta.url);
}
