// Drives agent through the Claude Agent SDK's query() with the SDK's
// system prompt options (common.mjs), printing {scenario, messages}:
//
//   custom:  options.systemPrompt, a string: the host's prompt instead of
//            agent's.
//   append:  options.systemPrompt, the claude_code preset with append:
//            agent's prompt, then the host's text.
import { base, collect, query } from "./common.mjs";

await collect("custom", query({ prompt: "who are you?", options: { ...base, systemPrompt: "You are a pirate. Say arr." } }));
await collect("append", query({ prompt: "and now?", options: { ...base,
  systemPrompt: { type: "preset", preset: "claude_code", append: "Always answer in French." } } }));
