// Drives agent through the Claude Agent SDK's query() (common.mjs) with a
// canUseTool that answers allow with an updatedInput changing the call's
// arguments, and prints one JSON object a line: {scenario, messages, asked}.
//
//   rewrite: the bash call runs with the host's command instead of the
//            model's.
//   rule:    the host's command is one a deny rule (--disallowedTools
//            "Bash(rm:*)") refuses: it does not run.
import { base, collect, query } from "./common.mjs";

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
  await collect("rewrite", query({ prompt: "run it", options: { ...base, canUseTool } }), { asked });
}
{
  const { asked, canUseTool } = rewriting("rm -f keep.txt");
  await collect("rule", query({ prompt: "run it", options: { ...base, canUseTool, disallowedTools: ["Bash(rm:*)"] } }), { asked });
}
