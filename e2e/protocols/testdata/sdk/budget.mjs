// Drives agent through the Claude Agent SDK's query() (common.mjs) with
// the option maxBudgetUsd (AGENT_BUDGET), which the SDK passes as
// --max-budget-usd, and prints {scenario: "budget", messages}.
import { base, collect, query } from "./common.mjs";

await collect("budget", query({
  prompt: "list the files three times",
  options: { ...base, maxBudgetUsd: Number(process.env.AGENT_BUDGET) },
}));
