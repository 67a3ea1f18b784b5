// Package render turns a [dom.View] into the text an agent reads.
//
// Fast mode ([Fast]) is plain code: one line per action or context text, in
// document order, wrapped in the perception text (page metadata, the
// pixels above/below markers, start and end markers). It is pure and
// deterministic, so a stored capture re-renders byte for byte.
//
// Token budgets ([FitBudget], [FitBudgets]) fit the fast rendering into N
// tokens of one encoding, wrapper included: the whole page when it fits,
// else the window grown from the viewport as far as it fits, else the
// viewport losing context lines, then length, then IDs, farthest from its
// centre first; [BudgetSpace] records what was kept and lost. [CutFromEnd]
// is the baseline: any format's text cut to the leading lines that fit.
//
// Deep mode ([Deep]) asks a chat model to summarise the page and describe
// and categorise every ID of the same view, in coverage rounds, with an
// on-disk reply cache ([Cache]) and exact accounting of calls and tokens
// ([DeepSpace]). Without a client it is a dry run that builds and counts
// the first prompt and invents nothing. The renderer owns the client
// interface ([ChatClient]) and the values it exchanges ([ChatRequest],
// which is also the cache key, and [ChatResponse]); the HTTP client for
// OpenAI-compatible endpoints is package [actionspace/llm], so that render
// links no HTTP SDK.
package render
