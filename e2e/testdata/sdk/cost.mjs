// Drives agent through the Claude Agent SDK's query() (SDK_MODULE) with a
// string prompt whose turn starts a subagent, and prints {scenario:
// "cost", messages}: the result's total_cost_usd and modelUsage.
import { pathToFileURL } from "node:url";

const { query } = await import(pathToFileURL(process.env.SDK_MODULE).href);
const messages = [];
const out = { scenario: "cost", messages };
try {
  for await (const m of query({ prompt: "delegate it", options: {
    pathToClaudeCodeExecutable: process.env.AGENT_BIN,
    extraArgs: JSON.parse(process.env.AGENT_EXTRA),
    cwd: process.env.AGENT_CWD,
    stderr: (data) => process.stderr.write(data),
  } })) messages.push(m);
} catch (e) {
  out.error = String(e?.message ?? e);
}
process.stdout.write(JSON.stringify(out) + "\n");
