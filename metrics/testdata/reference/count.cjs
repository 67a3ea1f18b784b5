// count.cjs counts tokens with the reference tokenizers for the metrics
// package's comparison test (reference_test.go), which runs it as
//
//	node count.cjs <texts.jsonl> <out.txt>
//
// with NODE_PATH naming the node_modules of package.json beside it. Each
// input line is a JSON object {"text": …, "mode": "tokens" | "pieces"};
// each output line answers the input line of the same number:
//
//	t <cl100k_base count> <IDs hash> <o200k_base count> <IDs hash>
//	p <cl100k_base pieces hash> <o200k_base pieces hash>
//
// Tokens come from tiktoken's encode_ordinary, the Rust core of OpenAI's
// tiktoken built for WebAssembly, with its own pre-splitting expressions
// (fancy-regex) and byte-pair merging. A hash is the first 8 hex digits of
// the SHA-256 of a list of numbers, each as 4 bytes little-endian: token
// IDs, or the UTF-8 lengths of the pieces. Pieces come from the
// pre-splitting expression of js-tiktoken (the same expressions, in
// JavaScript's syntax), for texts whose tokens tiktoken takes hours to
// merge: its merging is quadratic in a piece's length, and a white-space
// run is one piece. On stderr it says, per encoding, on how many texts
// js-tiktoken's tokens differ from tiktoken's.
'use strict';

const fs = require('fs');
const crypto = require('crypto');
const { get_encoding } = require('tiktoken');
const jsTiktoken = require('js-tiktoken');

const names = ['cl100k_base', 'o200k_base'];
// js-tiktoken merges in time quadratic in a piece's length with a large
// constant (1 KiB of spaces: 1.6 s; 16 KiB: 3 min): compare it on texts
// whose pieces are at most this many characters long.
const jsMaxPiece = 256;

function hash(numbers) {
  const buf = Buffer.alloc(4 * numbers.length);
  numbers.forEach((n, k) => buf.writeUInt32LE(n, 4 * k));
  return crypto.createHash('sha256').update(buf).digest('hex').slice(0, 8);
}

function main() {
  const [input, output] = process.argv.slice(2);
  const wasm = names.map((n) => get_encoding(n));
  const js = names.map((n) => jsTiktoken.getEncoding(n));
  const patterns = names.map((n) => new RegExp(require(`js-tiktoken/ranks/${n}`).pat_str, 'gu'));
  const jsDiffer = names.map(() => []);
  const jsCompared = names.map(() => 0);
  const lines = fs.readFileSync(input, 'utf8').split('\n').filter((l) => l !== '');
  const out = [];
  lines.forEach((line, k) => {
    const { text, mode } = JSON.parse(line);
    if (mode === 'pieces') {
      out.push(['p', ...patterns.map((p) => hash(Array.from(text.matchAll(p), (m) => Buffer.byteLength(m[0], 'utf8'))))].join(' '));
      return;
    }
    const fields = ['t'];
    wasm.forEach((enc, e) => {
      const ids = Array.from(enc.encode_ordinary(text));
      fields.push(ids.length, hash(ids));
      let longest = 0;
      for (const m of text.matchAll(patterns[e])) {
        longest = Math.max(longest, m[0].length);
      }
      if (longest <= jsMaxPiece) {
        jsCompared[e]++;
        const j = js[e].encode(text, [], []);
        if (j.length !== ids.length || j.some((id, i) => id !== ids[i])) {
          jsDiffer[e].push(k);
        }
      }
    });
    out.push(fields.join(' '));
  });
  wasm.forEach((enc) => enc.free());
  fs.writeFileSync(output, out.map((l) => l + '\n').join(''));
  names.forEach((n, e) => {
    process.stderr.write(`${n}: js-tiktoken differs from tiktoken on ${jsDiffer[e].length} of ${jsCompared[e]} texts` +
      (jsDiffer[e].length ? ` (input lines ${jsDiffer[e].slice(0, 20).map((k) => k + 1).join(', ')})` : '') + '\n');
  });
}

main();
