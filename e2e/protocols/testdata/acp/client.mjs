// An ACP client for the end-to-end tests, on the official SDK
// (@agentclientprotocol/sdk, whose entry point ACP_SDK names). It starts the
// agent (AGENT_BIN with the JSON array AGENT_ARGS) and plays the scenario
// argv[2] names, printing one JSON object a line for the Go test to check:
//
//   session: initialize, session/new in AGENT_CWD, prompt "hello" (the
//            answer streamed as chunks), prompt "run" (the permission
//            requests answered with the options of AGENT_ANSWERS in
//            order), prompt "wait" (session/cancel sent on its first
//            agent_message_chunk).
//   load:    initialize, session/load of AGENT_SESSION (the replayed
//            updates).
//   mcp:     initialize, session/new with the mcpServers of AGENT_MCP (a
//            JSON array), prompt "add".
//   plan:    initialize, session/new, session/set_mode "plan", prompt
//            "plan it" (the plan's permission request answered with
//            AGENT_ANSWERS), then prompt "go" in the mode it left.
//   cancel:  initialize, session/new, prompts "run" and "run again", whose
//            permission requests are answered as AGENT_ANSWERS says, where
//            "cancelled" is the outcome cancelled and "session/cancel"
//            sends session/cancel before answering cancelled.
//   fs:      initialize declaring fs read and write, session/new, prompt
//            "edit"; fs/read_text_file answers from an in-memory buffer
//            of AGENT_BUFFER's text and fs/write_text_file records what
//            it is given (printed as fs steps).
//   rewind:  initialize, session/new, prompts "edit" and "again", then
//            _agent/checkpoints, _agent/rewind to prompt 1 (code) as a
//            dry run and for real (the file read after each), a rewind
//            to checkpoint 9 (none), _agent/rewind to prompt 2 (the
//            conversation), and session/load of the fork it answers.
//
// It waits for the agent to exit before it exits itself.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const { client, methods, ndJsonStream, PROTOCOL_VERSION } = await import(pathToFileURL(process.env.ACP_SDK).href);

const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

// settled waits until the notifications that arrived before a response
// have been handled: the SDK resolves a response at once but hands
// notifications to their (asynchronous) handlers through promises, and
// every pending promise job runs before the event loop's next check phase.
const settled = () => new Promise((resolve) => setImmediate(resolve));
const proc = spawn(process.env.AGENT_BIN, JSON.parse(process.env.AGENT_ARGS), { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal })));
const stream = ndJsonStream(Writable.toWeb(proc.stdin), Readable.toWeb(proc.stdout));

const answers = JSON.parse(process.env.AGENT_ANSWERS || "[]");
let updates = [];
let onUpdate = () => {};
let conn = null; // the connection, once connected

const app = client({ name: "e2e" })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    const option = answers.shift() ?? "reject_once";
    out({ step: "permission", toolCall: params.toolCall, options: params.options.map((o) => o.kind), answer: option });
    if (option === "session/cancel") {
      conn.notify(methods.agent.session.cancel, { sessionId: params.sessionId });
    }
    if (option === "cancelled" || option === "session/cancel") {
      return { outcome: { outcome: "cancelled" } };
    }
    return { outcome: { outcome: "selected", optionId: option } };
  })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    out({ step: "fs", method: "read", path: params.path });
    return { content: process.env.AGENT_BUFFER };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    out({ step: "fs", method: "write", path: params.path, content: params.content });
    return {};
  })
  .onNotification(methods.client.session.update, ({ params }) => {
    updates.push(params.update);
    onUpdate(params);
  });

const cwd = process.env.AGENT_CWD;
const scenario = process.argv[2];
try {
  await app.connectWith(stream, async (cx) => {
    conn = cx;
    const init = await cx.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: scenario === "fs", writeTextFile: scenario === "fs" } },
    });
    out({ step: "initialize", response: init });
    if (scenario === "session") {
      const sess = await cx.request(methods.agent.session.new, { cwd, mcpServers: [] });
      out({ step: "new", response: sess });
      const id = sess.sessionId;
      const prompt = async (name, text) => {
        updates = [];
        const resp = await cx.request(methods.agent.session.prompt, { sessionId: id, prompt: [{ type: "text", text }] });
        await settled();
        out({ step: name, stopReason: resp.stopReason, updates });
      };
      await prompt("hello", "hello");
      await prompt("run", "run");
      onUpdate = (p) => {
        if (p.update.sessionUpdate === "agent_message_chunk") {
          onUpdate = () => {};
          cx.notify(methods.agent.session.cancel, { sessionId: id });
        }
      };
      await prompt("wait", "wait");
    } else if (scenario === "cancel") {
      const sess = await cx.request(methods.agent.session.new, { cwd, mcpServers: [] });
      for (const [name, text] of [["run", "run"], ["again", "run again"]]) {
        updates = [];
        const resp = await cx.request(methods.agent.session.prompt, { sessionId: sess.sessionId, prompt: [{ type: "text", text }] });
        await settled();
        out({ step: name, stopReason: resp.stopReason, updates });
      }
    } else if (scenario === "fs") {
      const sess = await cx.request(methods.agent.session.new, { cwd, mcpServers: [] });
      updates = [];
      const resp = await cx.request(methods.agent.session.prompt, { sessionId: sess.sessionId, prompt: [{ type: "text", text: "edit" }] });
      await settled();
      out({ step: "edit", stopReason: resp.stopReason, updates });
    } else if (scenario === "mcp") {
      const sess = await cx.request(methods.agent.session.new, { cwd, mcpServers: JSON.parse(process.env.AGENT_MCP) });
      updates = [];
      const resp = await cx.request(methods.agent.session.prompt, { sessionId: sess.sessionId, prompt: [{ type: "text", text: "add" }] });
      await settled();
      out({ step: "add", stopReason: resp.stopReason, updates });
    } else if (scenario === "plan") {
      const sess = await cx.request(methods.agent.session.new, { cwd, mcpServers: [] });
      await cx.request(methods.agent.session.setMode, { sessionId: sess.sessionId, modeId: "plan" });
      for (const [name, text] of [["plan", "plan it"], ["go", "go"]]) {
        updates = [];
        const resp = await cx.request(methods.agent.session.prompt, { sessionId: sess.sessionId, prompt: [{ type: "text", text }] });
        await settled();
        out({ step: name, stopReason: resp.stopReason, updates });
      }
    } else if (scenario === "rewind") {
      const sess = await cx.request(methods.agent.session.new, { cwd, mcpServers: [] });
      const sessionId = sess.sessionId;
      for (const text of ["edit", "again"]) {
        updates = [];
        const resp = await cx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
        await settled();
        out({ step: text, stopReason: resp.stopReason });
      }
      const read = () => readFileSync(join(cwd, process.env.AGENT_FILE), "utf8");
      out({ step: "checkpoints", response: await cx.request("_agent/checkpoints", { sessionId }) });
      out({ step: "dry", response: await cx.request("_agent/rewind", { sessionId, to: 1, scope: "code", dryRun: true }), file: read() });
      out({ step: "code", response: await cx.request("_agent/rewind", { sessionId, to: "1", scope: "code" }), file: read() });
      try {
        await cx.request("_agent/rewind", { sessionId, to: 9, scope: "code" });
        out({ step: "none", error: null });
      } catch (e) {
        out({ step: "none", error: { code: e.code, message: String(e.message), data: e.data } });
      }
      const conv = await cx.request("_agent/rewind", { sessionId, to: 2, scope: "conversation" });
      out({ step: "conversation", response: conv });
      updates = [];
      const loaded = await cx.request(methods.agent.session.load, { sessionId: conv.forkedSessionId, cwd, mcpServers: [] });
      await settled();
      out({ step: "load", response: loaded, updates });
    } else if (scenario === "load") {
      updates = [];
      const resp = await cx.request(methods.agent.session.load, { sessionId: process.env.AGENT_SESSION, cwd, mcpServers: [] });
      await settled();
      out({ step: "load", response: resp, updates });
    }
  });
} catch (e) {
  out({ step: "error", message: String(e && e.message ? e.message : e), data: e && e.data });
}
proc.stdin.end();
out({ step: "exit", ...(await exited) });
