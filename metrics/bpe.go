package metrics

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// encoder is one encoding: its pre-splitter and its vocabulary, the rank
// of every token by its bytes (the rank is the token's ID and the order
// in which byte-pair merging makes it).
type encoder struct {
	next  func(text string, i int) int
	ranks ranks
}

// ranks maps each token's bytes to its rank.
type ranks struct {
	of     map[string]uint32
	maxLen int // the longest token's length in bytes
}

// rank returns the rank of the token s, or noRank when s is not one.
func (r *ranks) rank(s string) uint32 {
	if len(s) > r.maxLen {
		return noRank
	}
	if n, ok := r.of[s]; ok {
		return n
	}
	return noRank
}

// noRank is the rank of a pair of parts that no token joins.
const noRank = math.MaxUint32

// loaded holds each encoding's encoder, built once per process on first
// use and never changed after: every Counter shares it.
var loaded = map[Encoding]func() (*encoder, error){
	CL100K: sync.OnceValues(func() (*encoder, error) { return buildEncoder(CL100K) }),
	O200K:  sync.OnceValues(func() (*encoder, error) { return buildEncoder(O200K) }),
}

// loadEncoder returns enc's encoder.
func loadEncoder(enc Encoding) (*encoder, error) {
	load, ok := loaded[enc]
	if !ok {
		return nil, fmt.Errorf("load encoding %s: unsupported", enc)
	}
	return load()
}

// buildEncoder loads enc's vocabulary from github.com/tiktoken-go/tokenizer,
// which compiles it into the binary, by decoding each token ID in turn:
// the IDs of the ordinary tokens are 0 up to the vocabulary's size, the
// special tokens' IDs come after and are not decoded.
func buildEncoder(enc Encoding) (*encoder, error) {
	codec, err := tokenizer.Get(tokenizer.Encoding(enc))
	if err != nil {
		return nil, fmt.Errorf("load encoding %s: %w", enc, err)
	}
	codec.SetErrorMode(tokenizer.ErrorModeNone) // the tokens' own bytes
	e := &encoder{ranks: ranks{of: make(map[string]uint32, 200_000)}}
	switch enc {
	case CL100K:
		e.next = nextCL100K
	case O200K:
		e.next = nextO200K
	default:
		return nil, fmt.Errorf("load encoding %s: no pre-splitter", enc)
	}
	ids := make([]uint, 1)
	for id := uint(0); id < noRank; id++ {
		ids[0] = id
		tok, err := codec.Decode(ids)
		if err != nil {
			break // the first ID past the ordinary tokens
		}
		if _, dup := e.ranks.of[tok]; dup || tok == "" {
			return nil, fmt.Errorf("load encoding %s: token %d (%q) is empty or repeated", enc, id, tok)
		}
		e.ranks.of[tok] = uint32(id)
		e.ranks.maxLen = max(e.ranks.maxLen, len(tok))
	}
	// Byte-level BPE: every byte is a token, so every piece can be merged.
	for b := range 256 {
		if _, ok := e.ranks.of[string([]byte{byte(b)})]; !ok {
			return nil, fmt.Errorf("load encoding %s: %d tokens, none for byte %#x", enc, len(e.ranks.of), b)
		}
	}
	return e, nil
}

// tokens calls yield with the rank of each token of text in turn, as
// tiktoken's encode_ordinary gives them: each piece of the pre-splitting
// that is a token is one; any other is byte-pair merged. Invalid UTF-8
// is first replaced (see replaceInvalid).
func (e *encoder) tokens(text string, yield func(rank uint32)) {
	text = replaceInvalid(text)
	var m merger
	for i := 0; i < len(text); {
		end := e.next(text, i)
		piece := text[i:end]
		i = end
		if rank := e.ranks.rank(piece); rank != noRank {
			yield(rank)
			continue
		}
		bounds := m.merge(&e.ranks, piece)
		for k := 0; k+1 < len(bounds); k++ {
			yield(e.ranks.rank(piece[bounds[k]:bounds[k+1]]))
		}
	}
}

// count returns the number of tokens of text (see tokens).
func (e *encoder) count(text string) int {
	text = replaceInvalid(text)
	var m merger
	n := 0
	for i := 0; i < len(text); {
		end := e.next(text, i)
		piece := text[i:end]
		i = end
		if e.ranks.rank(piece) != noRank {
			n++
			continue
		}
		n += len(m.merge(&e.ranks, piece)) - 1
	}
	return n
}

// scanMax is the longest piece, in bytes, that merger.merge merges by
// scanning for the lowest rank; longer ones use a heap. Most pieces are a
// word or a few symbols, for which a scan is fastest.
const scanMax = 64

// merger merges pieces, keeping its buffers from one piece to the next.
// The zero value is ready to use.
type merger struct {
	parts []part
	nodes []node
	heap  pairHeap
	out   []int32
}

// part is a part of a piece while it is merged: where it starts, and the
// rank of the token that joins it with the next part.
type part struct {
	start int
	rank  uint32
}

// merge returns the bounds of the tokens piece merges into, from 0 to
// len(piece) (len(piece) >= 2). Byte-pair merging starts from the piece's
// bytes and, as long as two neighbouring parts make a token, joins the
// pair whose token has the lowest rank, the leftmost on a tie. The
// returned slice is valid until the next call.
func (m *merger) merge(ranks *ranks, piece string) []int32 {
	if len(piece) > scanMax {
		return m.mergeHeap(ranks, piece)
	}
	return m.mergeScan(ranks, piece)
}

// mergeScan is merge as tiktoken does it: each join scans the parts for
// the lowest rank, so a piece of n bytes costs O(n²).
func (m *merger) mergeScan(ranks *ranks, piece string) []int32 {
	parts := m.parts[:0]
	for i := range len(piece) + 1 {
		parts = append(parts, part{start: i, rank: noRank})
	}
	// rank is the rank of parts k and k+1 joined, with k+1 about to go
	// (skip 1) or not (skip 0).
	rank := func(k, skip int) uint32 {
		if k+2+skip >= len(parts) {
			return noRank
		}
		return ranks.rank(piece[parts[k].start:parts[k+2+skip].start])
	}
	for k := 0; k+2 < len(parts); k++ {
		parts[k].rank = rank(k, 0)
	}
	for len(parts) > 2 {
		best, at := uint32(noRank), -1
		for k, p := range parts[:len(parts)-1] {
			if p.rank < best {
				best, at = p.rank, k
			}
		}
		if at < 0 {
			break
		}
		parts[at].rank = rank(at, 1)
		if at > 0 {
			parts[at-1].rank = rank(at-1, 1)
		}
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	m.parts = parts
	out := m.out[:0]
	for _, p := range parts {
		out = append(out, int32(p.start))
	}
	m.out = out
	return out
}

// node is a part of a piece in mergeHeap's linked list: the part that
// starts at the node's index runs to next; rank joins it with the part
// after.
type node struct {
	prev, next int32
	rank       uint32
}

// pairKey is a candidate join of the part that starts at start with the
// next, as it was when pushed (stale once the part's rank changed): the
// rank in the high 32 bits, start in the low, so that keys order pairs by
// rank, then start.
type pairKey uint64

func newPair(rank uint32, start int32) pairKey { return pairKey(rank)<<32 | pairKey(uint32(start)) }
func (p pairKey) rank() uint32                 { return uint32(p >> 32) }
func (p pairKey) start() int32                 { return int32(uint32(p)) }

// pairHeap is a 4-ary min-heap of pairs: its top is the pair merging
// joins next.
type pairHeap []pairKey

func (h *pairHeap) push(p pairKey) {
	*h = append(*h, p)
	h.up(len(*h) - 1)
}

func (h pairHeap) up(k int) {
	p := h[k]
	for k > 0 {
		parent := (k - 1) / 4
		if h[parent] <= p {
			break
		}
		h[k] = h[parent]
		k = parent
	}
	h[k] = p
}

func (h pairHeap) down(k int) {
	p := h[k]
	for {
		least, first := k, 4*k+1
		lp := p
		for c := first; c < first+4 && c < len(h); c++ {
			if h[c] < lp {
				least, lp = c, h[c]
			}
		}
		if least == k {
			break
		}
		h[k] = lp
		k = least
	}
	h[k] = p
}

func (h *pairHeap) pop() pairKey {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	if len(s) > 0 {
		s.down(0)
	}
	*h = s
	return top
}

// mergeHeap is merge in O(n log n) for a piece of n bytes: the parts are a
// linked list and the candidate pairs a heap, from which a pair whose part
// changed since it was pushed is dropped. It joins the same pairs in the
// same order as the scan: the lowest rank, the leftmost on a tie.
func (m *merger) mergeHeap(ranks *ranks, piece string) []int32 {
	n := int32(len(piece))
	nodes := m.nodes[:0]
	for i := range n + 1 {
		nodes = append(nodes, node{prev: i - 1, next: i + 1, rank: noRank})
	}
	nodes[n].next = -1
	rank := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 || nodes[j].next < 0 {
			return noRank
		}
		return ranks.rank(piece[i:nodes[j].next])
	}
	h := m.heap[:0]
	for i := range n - 1 {
		if r := rank(i); r != noRank {
			nodes[i].rank = r
			h = append(h, newPair(r, i))
		}
	}
	for k := (len(h) - 2) / 4; len(h) > 1 && k >= 0; k-- {
		h.down(k) // from the last parent up: a heap in O(n)
	}
	for len(h) > 0 {
		p := h.pop()
		i := p.start()
		if nodes[i].rank != p.rank() || nodes[i].next < 0 {
			continue // stale
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		nodes[j].rank = noRank
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			if nodes[b].rank = rank(b); nodes[b].rank != noRank {
				h.push(newPair(nodes[b].rank, b))
			}
		}
	}
	m.nodes, m.heap = nodes, h
	out := m.out[:0]
	for i := int32(0); i >= 0; i = nodes[i].next {
		out = append(out, i)
	}
	m.out = out
	return out
}

// replaceInvalid returns text with each maximal ill-formed subsequence of
// its UTF-8 replaced by U+FFFD, as tiktoken sees bytes decoded with
// errors="replace" (Python's decoder, which follows the Unicode
// standard's practice: a truncated sequence is one U+FFFD, each other
// invalid byte one).
func replaceInvalid(text string) string {
	if utf8.ValidString(text) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 8)
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r != utf8.RuneError || n > 1 {
			b.WriteString(text[i : i+n])
			i += n
			continue
		}
		b.WriteRune(utf8.RuneError)
		i += maximalSubpart(text[i:])
	}
	return b.String()
}

// maximalSubpart returns the length of the maximal ill-formed subsequence
// at the start of s, which does not start with a valid character: the
// longest prefix of a valid UTF-8 sequence (at least one byte).
func maximalSubpart(s string) int {
	need, lo, hi := 0, byte(0x80), byte(0xbf)
	switch b := s[0]; {
	case b >= 0xc2 && b <= 0xdf:
		need = 1
	case b == 0xe0:
		need, lo = 2, 0xa0
	case b >= 0xe1 && b <= 0xec, b == 0xee, b == 0xef:
		need = 2
	case b == 0xed:
		need, hi = 2, 0x9f
	case b == 0xf0:
		need, lo = 3, 0x90
	case b >= 0xf1 && b <= 0xf3:
		need = 3
	case b == 0xf4:
		need, hi = 3, 0x8f
	default:
		return 1
	}
	k := 1
	for ; k <= need && k < len(s); k++ {
		if b := s[k]; b < lo || b > hi {
			break
		}
		lo, hi = 0x80, 0xbf
	}
	return k
}
