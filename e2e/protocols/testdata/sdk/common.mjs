// What the scripts driving agent through the Claude Agent SDK share: the
// SDK's query() (from the module SDK_MODULE names), the options that run
// the agent under test (AGENT_BIN in AGENT_CWD, with AGENT_EXTRA, a JSON
// object of extra flags: the scripted model's URL, the session database),
// and collect, which runs a query to its end and prints one JSON object a
// line: {scenario, messages, error?, ...more}.
import { pathToFileURL } from "node:url";

export const { query } = await import(pathToFileURL(process.env.SDK_MODULE).href);

export const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

export const base = {
  pathToClaudeCodeExecutable: process.env.AGENT_BIN,
  extraArgs: JSON.parse(process.env.AGENT_EXTRA),
  cwd: process.env.AGENT_CWD,
  stderr: (data) => process.stderr.write(data),
};

// collect reads query q to its end, prints {scenario: name, messages,
// ...more} (with error when the SDK failed) and returns the messages.
export async function collect(name, q, more = {}) {
  const messages = [];
  const obj = { scenario: name, messages, ...more };
  try {
    for await (const m of q) messages.push(m);
  } catch (e) {
    obj.error = String(e?.message ?? e);
  }
  out(obj);
  return messages;
}
