package render

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"actionspace/dom"
	"actionspace/metrics"
)

// Defaults for [Deep].
const (
	// DefaultCoverage is the share of a view's IDs that must be described
	// for the listing to count as complete.
	DefaultCoverage = 0.95
	// DefaultMaxExtraRounds is the number of incremental rounds after the
	// first one.
	DefaultMaxExtraRounds = 3
	// DefaultMaxParseRetries is the number of times a call is repeated
	// after an unparseable reply.
	DefaultMaxParseRetries = 3
	// DeepSeed is the sampling seed sent with every request.
	DeepSeed = 1
	// LocalEncoding is the encoding of PromptTokensLocal.
	LocalEncoding = metrics.CL100K
	// OtherCategory is the heading of actions whose reply gave no category.
	OtherCategory = "Other"
)

// Deep renders a view in deep mode: a chat model describes every action
// (docs/crawl.md, "Deep mode"). The fields are the settings; set them before the
// first Render and do not change them afterwards. One Deep may render
// many views concurrently.
//
// A render runs in rounds. The first round sends the page tree
// ([PromptTree]) and asks for a summary and a description, category and
// parameters for every ID. When less than Coverage of the IDs come back
// described, an incremental round asks for the missing IDs only (the tree
// is sent again), up to MaxExtraRounds times; rounds also stop when one
// adds nothing, since the next request would repeat it. Each call is
// repeated up to MaxParseRetries times when the reply cannot be parsed,
// with the bad reply and a note appended to the conversation. IDs that
// the view does not have are dropped and counted (HallucinatedIDs). With
// ClassifyPage, one more call picks the page type.
//
// Requests ask for JSON through response_format (a JSON schema); a client
// that finds the server rejecting it sends the request's tagged-text
// variant instead, and the parser reads either form.
type Deep struct {
	// Client sends the requests; nil means a dry run: the first-round
	// prompt is built and counted, no call is made.
	Client ChatClient
	// Model is the model name sent and recorded; required with a Client.
	Model string
	// Cache, when set, answers repeated requests from disk.
	Cache *Cache
	// Counter counts PromptTokensLocal in LocalEncoding; required, and it
	// must have LocalEncoding loaded.
	Counter *metrics.Counter
	// Coverage is the target share of described IDs; 0 means
	// DefaultCoverage.
	Coverage float64
	// MaxExtraRounds caps the incremental rounds; 0 means
	// DefaultMaxExtraRounds, a negative value means none.
	MaxExtraRounds int
	// MaxParseRetries caps the repeats after an unparseable reply; 0 means
	// DefaultMaxParseRetries, a negative value means none.
	MaxParseRetries int
	// ClassifyPage adds the page classification call (PageCategory).
	ClassifyPage bool
	// MaxTokens caps each completion when positive; 0 sends no cap.
	MaxTokens int
	// Logger receives cache and parse notices; nil means slog.Default().
	Logger *slog.Logger
}

// Validate reports an unusable setting, naming the field.
func (d *Deep) Validate() error {
	if d.Counter == nil {
		return errors.New("deep render: Counter is nil")
	}
	if d.Client != nil && d.Model == "" {
		return errors.New("deep render: Model is empty")
	}
	if d.Coverage < 0 || d.Coverage > 1 {
		return fmt.Errorf("deep render: Coverage %v: want 0 (default) or a share in (0, 1]", d.Coverage)
	}
	if d.MaxTokens < 0 {
		return fmt.Errorf("deep render: MaxTokens %d is negative", d.MaxTokens)
	}
	return nil
}

// Description is what the model said about one action.
type Description struct {
	// Description says what the action does.
	Description string
	// Category is the heading the action is listed under (the spelling of
	// the category's first use in document order; OtherCategory when the
	// reply gave none).
	Category string
	// Params are the action's parameters ("" for a plain click).
	Params string
	// Round is the round (1-based) whose reply described the action.
	Round int
}

// DeepSpace is a view rendered in deep mode, with the accounting of what
// it cost.
type DeepSpace struct {
	// Text is the agent-facing description: the summary paragraph, then
	// for each category a "# Category" line and its actions as
	// "* ID: description (params)" lines ("(params)" only when there are
	// some). Categories come in the document order of their first action,
	// actions in document order. Every line ends in "\n". Empty in a dry
	// run and when nothing was described.
	Text string
	// Perception wraps Text like the fast perception text (page metadata,
	// scroll markers, start and end markers); empty when Text is.
	Perception string
	// Fast is the fast rendering of the same view, which fixes the IDs.
	Fast Space
	// Summary is the model's one-paragraph page summary.
	Summary string
	// PageCategory is the page type from the classification call; empty
	// when the call did not run or gave no usable answer.
	PageCategory string
	// Descriptions maps described IDs to what the model said.
	Descriptions map[string]Description
	// Prompt is the first-round prompt, as [JoinMessages] of the messages
	// sent first (the structured variant).
	Prompt string

	// Model is Deep.Model.
	Model string
	// LLMRan reports whether any model reply was used, fresh or from the
	// cache. False in a dry run.
	LLMRan bool
	// Calls is the number of HTTP requests made by this render: retries,
	// the structured-output fallback, the repeats after unparseable
	// replies and the classification call included; cache hits excluded.
	Calls int
	// Rounds is the number of tagging rounds run (first plus incremental).
	Rounds int
	// CacheHits is the number of replies taken from the cache.
	CacheHits int
	// PromptTokensAPI and CompletionTokensAPI sum the usage the server
	// reported for every reply used (cached replies carry the usage of
	// the call that produced them). Nil in a dry run, and when any reply
	// came without usage: a partial sum would pass for the whole.
	PromptTokensAPI, CompletionTokensAPI *int64
	// PromptTokensLocal is the LocalEncoding token count of JoinMessages
	// of the messages behind every reply used (see JoinMessages for what
	// it leaves out); in a dry run, of Prompt alone.
	PromptTokensLocal int64
	// LLMTime is the time spent in HTTP exchanges by this render (as the
	// client reports it; the wall time of a call when it does not). Zero
	// for cache hits and dry runs.
	LLMTime time.Duration
	// Coverage is the share of the view's IDs that are described: 1 for a
	// view without IDs once the model ran; 0 in a dry run.
	Coverage float64
	// HallucinatedIDs counts entries whose ID the view does not have.
	HallucinatedIDs int
	// DroppedEntries counts entries that could not be used: without an ID
	// or description, or repeating an ID.
	DroppedEntries int
}

// Render describes the actions of a view. With no Client it is a dry run:
// the result holds the fast space, the first-round prompt and its local
// token count, LLMRan false, Calls 0, nil API figures, Coverage 0 and an
// empty Text (the caller decides what to store as the action space).
//
// It fails when a call fails after its retries (the client's error, such
// as an [*actionspace/llm.Error], or the context's) or when the first
// round's reply stays unparseable ([ErrUnparseable]); the returned
// DeepSpace then still holds the accounting of the calls made and what
// was described so far. An incremental round or a classification that
// stays unparseable ends that step without an error.
func (d *Deep) Render(ctx context.Context, v *dom.View) (DeepSpace, error) {
	if err := d.Validate(); err != nil {
		return DeepSpace{}, err
	}
	fs := Fast(v)
	out := DeepSpace{Fast: fs, Model: d.Model, Descriptions: map[string]Description{}}
	ids := make([]string, len(fs.Actions))
	known := make(map[string]bool, len(ids))
	for i, a := range fs.Actions {
		ids[i] = a.ID
		known[a.ID] = true
	}
	tree := PromptTree(v)
	req := d.tagRequest(tree, ids, true)
	out.Prompt = JoinMessages(req.Messages)
	if d.Client == nil {
		n, err := d.Counter.Count(LocalEncoding, out.Prompt)
		if err != nil {
			return out, fmt.Errorf("deep render: count prompt tokens: %w", err)
		}
		out.PromptTokensLocal = n
		return out, nil
	}

	r := &run{d: d, out: &out, usageKnown: true}
	var runErr error
	missing := ids
	for round := 1; ; round++ {
		out.Rounds = round
		reply, err := r.tagCall(ctx, req)
		if err != nil {
			if round == 1 || !errors.Is(err, ErrUnparseable) {
				runErr = err
			} else {
				d.logger().Warn("deep render: incremental round stays unparseable; keeping what was described",
					"url", v.Tree.Capture.Page.URL, "round", round, "err", err)
			}
			break
		}
		if out.Summary == "" {
			out.Summary = reply.Summary
		}
		out.DroppedEntries += reply.Dropped
		added := 0
		for _, e := range reply.Entries {
			if !known[e.ID] {
				out.HallucinatedIDs++
				continue
			}
			if _, dup := out.Descriptions[e.ID]; dup {
				continue // an earlier round's description stands
			}
			cat := e.Category
			if cat == "" {
				cat = OtherCategory
			}
			out.Descriptions[e.ID] = Description{Description: e.Description, Category: cat, Params: e.Params, Round: round}
			added++
		}
		if coverage(len(out.Descriptions), len(ids)) >= d.coverage() || round > d.extraRounds() || (round > 1 && added == 0) {
			break
		}
		missing = missingIDs(ids, out.Descriptions)
		req = d.tagRequest(tree, missing, false)
	}

	if runErr == nil && d.ClassifyPage {
		cat, err := r.categoryCall(ctx, d.categoryRequest(tree))
		switch {
		case err == nil:
			out.PageCategory = cat
		case errors.Is(err, ErrUnparseable):
			d.logger().Warn("deep render: page classification stays unparseable", "url", v.Tree.Capture.Page.URL, "err", err)
		default:
			runErr = err
		}
	}

	out.Coverage = coverage(len(out.Descriptions), len(ids))
	if !out.LLMRan {
		out.Coverage = 0
	}
	if r.replies > 0 && r.usageKnown {
		p, c := r.promptAPI, r.completionAPI
		out.PromptTokensAPI, out.CompletionTokensAPI = &p, &c
	}
	out.Text = deepText(out.Summary, ids, out.Descriptions)
	if out.Text != "" {
		out.Perception = perception(v, out.Text)
	}
	return out, runErr
}

func (d *Deep) coverage() float64 {
	if d.Coverage == 0 {
		return DefaultCoverage
	}
	return d.Coverage
}

func (d *Deep) extraRounds() int {
	switch {
	case d.MaxExtraRounds == 0:
		return DefaultMaxExtraRounds
	case d.MaxExtraRounds < 0:
		return 0
	}
	return d.MaxExtraRounds
}

func (d *Deep) parseRetries() int {
	switch {
	case d.MaxParseRetries == 0:
		return DefaultMaxParseRetries
	case d.MaxParseRetries < 0:
		return 0
	}
	return d.MaxParseRetries
}

func (d *Deep) logger() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.Default()
}

// coverage is described/total, 1 for a view without IDs.
func coverage(described, total int) float64 {
	if total == 0 {
		return 1
	}
	return float64(described) / float64(total)
}

func missingIDs(ids []string, desc map[string]Description) []string {
	var out []string
	for _, id := range ids {
		if _, ok := desc[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// deepText renders the agent-facing description (layout on DeepSpace.Text).
// It also rewrites each description's Category to the category's first
// spelling in document order, so that "search" and "Search" make one
// heading.
func deepText(summary string, ids []string, desc map[string]Description) string {
	type group struct {
		name  string
		lines []string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, id := range ids {
		dsc, ok := desc[id]
		if !ok {
			continue
		}
		key := strings.ToLower(dsc.Category)
		g := byKey[key]
		if g == nil {
			g = &group{name: dsc.Category}
			byKey[key] = g
			groups = append(groups, g)
		}
		dsc.Category = g.name
		desc[id] = dsc
		line := "* " + id + ": " + dsc.Description
		if dsc.Params != "" {
			line += " (" + dsc.Params + ")"
		}
		g.lines = append(g.lines, line)
	}
	var b strings.Builder
	if summary != "" {
		b.WriteString(summary)
		b.WriteByte('\n')
	}
	for _, g := range groups {
		b.WriteString("# " + g.name + "\n")
		for _, l := range g.lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// run holds the accounting of one Render.
type run struct {
	d   *Deep
	out *DeepSpace
	// replies counts the replies used; usageKnown stays true while every
	// one of them carried usage.
	replies                  int
	usageKnown               bool
	promptAPI, completionAPI int64
}

// tagCall makes one tagging call, repeating it after unparseable replies.
func (r *run) tagCall(ctx context.Context, req ChatRequest) (tagReply, error) {
	var last error
	for attempt := 0; attempt <= r.d.parseRetries(); attempt++ {
		resp, err := r.complete(ctx, req)
		if err != nil {
			return tagReply{}, err
		}
		reply, err := parseTagging(resp.Content)
		if err == nil {
			return reply, nil
		}
		last = err
		r.d.logger().Debug("deep render: unparseable reply; asking again", "attempt", attempt+1, "err", err)
		req = fixRequest(req, resp, err.Error())
	}
	return tagReply{}, fmt.Errorf("deep render: tagging call: %w", last)
}

// categoryCall makes the classification call, repeating it after
// unparseable replies.
func (r *run) categoryCall(ctx context.Context, req ChatRequest) (string, error) {
	var last error
	for attempt := 0; attempt <= r.d.parseRetries(); attempt++ {
		resp, err := r.complete(ctx, req)
		if err != nil {
			return "", err
		}
		cat, err := parseCategory(resp.Content)
		if err == nil {
			return cat, nil
		}
		last = err
		req = fixRequest(req, resp, err.Error())
	}
	return "", fmt.Errorf("deep render: classification call: %w", last)
}

// complete answers a request from the cache or the client, and accounts
// for it.
func (r *run) complete(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	d, out := r.d, r.out
	var key string
	if d.Cache != nil {
		key = CacheKey(req)
		c, ok, err := d.Cache.Get(key)
		if err != nil {
			d.logger().Warn("deep render: unreadable llm cache entry; calling the model", "err", err)
		}
		if ok {
			out.CacheHits++
			resp := ChatResponse{Content: c.Content, Usage: c.Usage, Structured: c.Structured, FinishReason: c.FinishReason, Model: c.ServerModel}
			return resp, r.account(req, resp)
		}
	}
	start := time.Now()
	resp, err := d.Client.Complete(ctx, req)
	wall := time.Since(start)
	out.Calls += max(resp.Attempts, 1)
	// A failed call that made requests reports its time even when it is
	// zero (see ChatClient).
	if resp.Elapsed > 0 || (err != nil && resp.Attempts > 0) {
		out.LLMTime += resp.Elapsed
	} else {
		out.LLMTime += wall
	}
	if err != nil {
		return resp, fmt.Errorf("deep render: %w", err)
	}
	if d.Cache != nil {
		err := d.Cache.Put(key, CachedReply{Model: req.Model, Content: resp.Content, Usage: resp.Usage,
			Structured: resp.Structured, FinishReason: resp.FinishReason, ServerModel: resp.Model})
		if err != nil {
			d.logger().Warn("deep render: cannot store llm reply", "err", err)
		}
	}
	return resp, r.account(req, resp)
}

// account adds a used reply to the token figures.
func (r *run) account(req ChatRequest, resp ChatResponse) error {
	r.out.LLMRan = true
	r.replies++
	if resp.Usage == nil {
		r.usageKnown = false
	} else {
		r.promptAPI += resp.Usage.PromptTokens
		r.completionAPI += resp.Usage.CompletionTokens
	}
	n, err := r.d.Counter.Count(LocalEncoding, JoinMessages(req.Sent(resp.Structured)))
	if err != nil {
		return fmt.Errorf("deep render: count prompt tokens: %w", err)
	}
	r.out.PromptTokensLocal += n
	return nil
}
