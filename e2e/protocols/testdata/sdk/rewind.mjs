// Drives agent through the Claude Agent SDK's query() (common.mjs) with
// enableFileCheckpointing and extraArgs {"replay-user-messages": null}:
// one prompt (sent with a uuid of the script's) whose turn changes files,
// then, once its result arrived, rewindFiles(uuid, {dryRun: true}) (the
// files read after it), rewindFiles(uuid), and rewindFiles of a uuid no
// prompt had. Prints {scenario: "rewind", messages, uuid, dry,
// afterDry, done, unknown}; then {scenario: "off", off}: rewindFiles
// without enableFileCheckpointing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { base, out, query } from "./common.mjs";

// A prompt stream whose messages are sent when push is called; end closes it.
function inputStream() {
  const queue = [];
  let wake = null;
  let ended = false;
  return {
    push(msg) { queue.push(msg); wake?.(); },
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

const read = (name) => { try { return readFileSync(join(base.cwd, name), "utf8"); } catch { return null; } };
const sent = "5f0c2a0e-7b7d-4c53-9a43-2d6f1b8e9c01";
const options = { ...base, permissionMode: "acceptEdits", enableFileCheckpointing: true,
  extraArgs: { ...base.extraArgs, "replay-user-messages": null } };

{
  const input = inputStream();
  input.push({ type: "user", uuid: sent, session_id: "", parent_tool_use_id: null, message: { role: "user", content: "change them" } });
  const q = query({ prompt: input, options });
  const obj = { scenario: "rewind", messages: [], sent };
  try {
    for await (const m of q) {
      obj.messages.push(m);
      if (m.type === "user" && m.isReplay) obj.uuid = m.uuid;
      if (m.type === "result") {
        obj.dry = await q.rewindFiles(obj.uuid, { dryRun: true });
        obj.afterDry = { "a.txt": read("a.txt"), "b.txt": read("b.txt") };
        obj.done = await q.rewindFiles(obj.uuid);
        obj.unknown = await q.rewindFiles("00000000-0000-4000-8000-000000000000");
        input.end();
      }
    }
  } catch (e) {
    obj.error = String(e?.message ?? e);
  }
  out(obj);
}

{
  const input = inputStream();
  input.push({ type: "user", session_id: "", parent_tool_use_id: null, message: { role: "user", content: "hello" } });
  const q = query({ prompt: input, options: { ...options, enableFileCheckpointing: false } });
  const obj = { scenario: "off", messages: [] };
  try {
    for await (const m of q) {
      obj.messages.push(m);
      if (m.type === "user" && m.isReplay) obj.uuid = m.uuid;
      if (m.type === "result") {
        obj.off = await q.rewindFiles(obj.uuid ?? "none");
        input.end();
      }
    }
  } catch (e) {
    obj.error = String(e?.message ?? e);
  }
  out(obj);
}
