// Drives agent through the Claude Agent SDK's query() (common.mjs) with a
// string prompt whose turn starts a subagent, and prints {scenario:
// "cost", messages}: the result's total_cost_usd and modelUsage.
import { base, collect, query } from "./common.mjs";

await collect("cost", query({ prompt: "delegate it", options: { ...base } }));
