// Drives agent through the Claude Agent SDK's query() (the module SDK_MODULE
// names), with pathToClaudeCodeExecutable the agent under test (AGENT_BIN)
// and AGENT_EXTRA (a JSON object of extra flags: the scripted model's URL,
// the session database). It plays these scenarios in order, each a query of
// its own, and prints one JSON object a line: {scenario, messages, ...}.
//
//   string:    a string prompt.
//   stream:    streaming input, two user messages, the second sent when
//              the first turn's result arrived.
//   interrupt: streaming input; interrupt() on the first assistant text.
//   mode:      setPermissionMode("acceptEdits") before the prompt: the
//              write needs no canUseTool.
//   deny:      canUseTool denies a bash call.
//
// Every query is closed and its process awaited (the SDK waits for its
// child's exit before its iterator ends).
import { base, out, query } from "./common.mjs";

// A prompt stream whose messages are sent when push is called; end closes it.
function inputStream() {
  const queue = [];
  let wake = null;
  let ended = false;
  return {
    push(text) {
      queue.push({ type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" });
      wake?.();
    },
    end() { ended = true; wake?.(); },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length) yield queue.shift();
        if (ended) return;
        await new Promise((r) => (wake = r));
        wake = null;
      }
    },
  };
}

async function collect(name, q, onMessage = () => {}) {
  const messages = [];
  try {
    for await (const m of q) {
      messages.push(m);
      await onMessage(m, messages);
    }
    out({ scenario: name, messages });
  } catch (e) {
    out({ scenario: name, messages, error: String(e?.message ?? e) });
  }
}

const asked = [];
const canUseTool = async (toolName, input) => {
  asked.push(toolName);
  return toolName === "bash"
    ? { behavior: "deny", message: "no shell for you" }
    : { behavior: "allow", updatedInput: input };
};

await collect("string", query({ prompt: "hello", options: { ...base } }));

{
  const input = inputStream();
  input.push("first");
  let results = 0;
  await collect("stream", query({ prompt: input, options: { ...base } }), (m) => {
    if (m.type === "result" && ++results === 1) input.push("second");
    if (m.type === "result" && results === 2) input.end();
  });
}

{
  const input = inputStream();
  input.push("go on and on");
  let interrupted = false;
  const q = query({ prompt: input, options: { ...base, includePartialMessages: true } });
  await collect("interrupt", q, async (m) => {
    if (!interrupted && m.type === "stream_event" && m.event.type === "content_block_delta") {
      interrupted = true;
      await q.interrupt();
    }
    if (m.type === "result") input.end();
  });
}

{
  const input = inputStream();
  const q = query({ prompt: input, options: { ...base, canUseTool, permissionMode: "default" } });
  await q.setPermissionMode("acceptEdits");
  input.push("write it");
  await collect("mode", q, (m) => { if (m.type === "result") input.end(); });
  out({ scenario: "mode-asked", asked: [...asked] });
}

asked.length = 0;
await collect("deny", query({ prompt: "run it", options: { ...base, canUseTool } }));
out({ scenario: "deny-asked", asked: [...asked] });
