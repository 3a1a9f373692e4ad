// Runs the JavaScript reference tokenizer (npm @lenml/tokenizers) for the C++ tests and benchmark.
//   node tokenizer_reference.js encode MODULE_DIR TOKENIZER_JSON TOKENIZER_CONFIG IN.jsonl OUT.jsonl
//     IN: one JSON string per line; OUT: {"ids": [...], "decoded": "..."} per line.
//   node tokenizer_reference.js bench MODULE_DIR TOKENIZER_JSON TOKENIZER_CONFIG TEXT_FILE SECONDS
//     prints {"bytes": N, "seconds": S, "tokens": T} for encoding TEXT_FILE repeatedly (S in CPU
//     seconds).
'use strict';
const fs = require('fs');

const [mode, moduleDir, tokenizerJson, tokenizerConfig, input, last] = process.argv.slice(2);
const { TokenizerLoader } = require(moduleDir);
const tokenizer = TokenizerLoader.fromPreTrained({
  tokenizerJSON: JSON.parse(fs.readFileSync(tokenizerJson, 'utf8')),
  tokenizerConfig: JSON.parse(fs.readFileSync(tokenizerConfig, 'utf8')),
});

if (mode === 'encode') {
  const lines = fs.readFileSync(input, 'utf8').split('\n').filter((l) => l.length > 0);
  const out = lines.map((line) => {
    const ids = tokenizer.encode(JSON.parse(line), { add_special_tokens: false });
    const decoded = ids.length === 0 ? '' : tokenizer.decode(ids, { skip_special_tokens: false });
    return JSON.stringify({ ids, decoded });
  });
  fs.writeFileSync(last, out.join('\n') + '\n');
} else if (mode === 'bench') {
  const text = fs.readFileSync(input, 'utf8');
  const bytes = Buffer.byteLength(text, 'utf8');
  const budget = Number(last) * 1000;
  tokenizer.encode(text, { add_special_tokens: false });  // warm up (JIT, caches)
  // CPU time of this process (user + system), in microseconds.
  const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
  let rounds = 0, tokens = 0;
  const start = cpu();
  while (cpu() - start < budget * 1000 || rounds === 0) {
    tokens += tokenizer.encode(text, { add_special_tokens: false }).length;
    ++rounds;
  }
  const seconds = (cpu() - start) / 1e6;
  process.stdout.write(JSON.stringify({ bytes: bytes * rounds, seconds, tokens }) + '\n');
} else {
  process.stderr.write('unknown mode ' + mode + '\n');
  process.exit(2);
}
