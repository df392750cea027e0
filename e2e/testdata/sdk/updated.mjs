// Drives agent through the Claude Agent SDK's query() (SDK_MODULE) with a
// canUseTool that answers allow with an updatedInput changing the call's
// arguments, and prints one JSON object a line: {scenario, messages, asked}.
//
//   rewrite: the bash call runs with the host's command instead of the
//            model's.
//   rule:    the host's command is one a deny rule (--disallowedTools
//            "Bash(rm:*)") refuses: it does not run.
import { pathToFileURL } from "node:url";

const { query } = await import(pathToFileURL(process.env.SDK_MODULE).href);
const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const base = {
  pathToClaudeCodeExecutable: process.env.AGENT_BIN,
  extraArgs: JSON.parse(process.env.AGENT_EXTRA),
  cwd: process.env.AGENT_CWD,
  stderr: (data) => process.stderr.write(data),
};

async function collect(name, q, asked) {
  const messages = [];
  try {
    for await (const m of q) messages.push(m);
    out({ scenario: name, messages, asked });
  } catch (e) {
    out({ scenario: name, messages, asked, error: String(e?.message ?? e) });
  }
}

function rewriting(command) {
  const asked = [];
  const canUseTool = async (toolName, input) => {
    asked.push({ toolName, input });
    return { behavior: "allow", updatedInput: { ...input, command } };
  };
  return { asked, canUseTool };
}

{
  const { asked, canUseTool } = rewriting("echo host > host.txt");
  await collect("rewrite", query({ prompt: "run it", options: { ...base, canUseTool } }), asked);
}
{
  const { asked, canUseTool } = rewriting("rm -f keep.txt");
  await collect("rule", query({ prompt: "run it", options: { ...base, canUseTool, disallowedTools: ["Bash(rm:*)"] } }), asked);
}
