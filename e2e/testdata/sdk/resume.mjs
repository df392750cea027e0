// Drives agent through the Claude Agent SDK's query() (SDK_MODULE): a first
// query, then one with resume (the first's session id) and one with
// continue: true, each a string prompt; prints {scenario, messages} for
// each of "first", "resume" and "continue".
import { pathToFileURL } from "node:url";

const { query } = await import(pathToFileURL(process.env.SDK_MODULE).href);
const base = {
  pathToClaudeCodeExecutable: process.env.AGENT_BIN,
  extraArgs: JSON.parse(process.env.AGENT_EXTRA),
  cwd: process.env.AGENT_CWD,
  stderr: (data) => process.stderr.write(data),
};

async function collect(name, q) {
  const messages = [];
  const out = { scenario: name, messages };
  try {
    for await (const m of q) messages.push(m);
  } catch (e) {
    out.error = String(e?.message ?? e);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
  return messages;
}

const first = await collect("first", query({ prompt: "remember the word kumquat", options: { ...base } }));
const id = first.find((m) => m.type === "result")?.session_id;
await collect("resume", query({ prompt: "what was the word?", options: { ...base, resume: id } }));
await collect("continue", query({ prompt: "and again?", options: { ...base, continue: true } }));
