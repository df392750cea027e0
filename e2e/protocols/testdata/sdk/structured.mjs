// Drives agent through the Claude Agent SDK's query() with the outputFormat
// option (common.mjs), printing {scenario, messages}:
//
//   structured:  outputFormat {type: 'json_schema', schema}: the SDK passes
//                the schema to its executable (--json-schema); the result
//                carries structured_output.
import { base, collect, query } from "./common.mjs";

const schema = {
  type: "object",
  properties: { files: { type: "array", items: { type: "string" } } },
  required: ["files"],
  additionalProperties: false,
};

await collect("structured", query({ prompt: "which files are there?", options: { ...base,
  outputFormat: { type: "json_schema", schema } } }));
