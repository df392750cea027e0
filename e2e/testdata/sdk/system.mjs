// Drives agent through the Claude Agent SDK's query() (SDK_MODULE) with
// the SDK's system prompt options, and prints one JSON object a line:
// {scenario, messages}.
//
//   custom:  options.systemPrompt, a string: the host's prompt instead of
//            agent's.
//   append:  options.systemPrompt, the claude_code preset with append:
//            agent's prompt, then the host's text.
import { pathToFileURL } from "node:url";

const { query } = await import(pathToFileURL(process.env.SDK_MODULE).href);
const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const base = {
  pathToClaudeCodeExecutable: process.env.AGENT_BIN,
  extraArgs: JSON.parse(process.env.AGENT_EXTRA),
  cwd: process.env.AGENT_CWD,
  stderr: (data) => process.stderr.write(data),
};

async function collect(name, q) {
  const messages = [];
  try {
    for await (const m of q) messages.push(m);
    out({ scenario: name, messages });
  } catch (e) {
    out({ scenario: name, messages, error: String(e?.message ?? e) });
  }
}

await collect("custom", query({ prompt: "who are you?", options: { ...base, systemPrompt: "You are a pirate. Say arr." } }));
await collect("append", query({ prompt: "and now?", options: { ...base,
  systemPrompt: { type: "preset", preset: "claude_code", append: "Always answer in French." } } }));
