// Drives agent through the Claude Agent SDK's query() (common.mjs): a first
// query, then one with resume (the first's session id) and one with
// continue: true, each a string prompt; prints {scenario, messages} for
// each of "first", "resume" and "continue".
import { base, collect, query } from "./common.mjs";

const first = await collect("first", query({ prompt: "remember the word kumquat", options: { ...base } }));
const id = first.find((m) => m.type === "result")?.session_id;
await collect("resume", query({ prompt: "what was the word?", options: { ...base, resume: id } }));
await collect("continue", query({ prompt: "and again?", options: { ...base, continue: true } }));
