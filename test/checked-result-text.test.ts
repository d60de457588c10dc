// A checked result's text (vocabulary/checked-result-text.ts) is kept only
// where something reads it: the stdio wire writes answers from it, and a
// host serving Streamable HTTP (whose SDK transport writes each answer
// itself) or serving nothing stores none. Real parts: the mount's result
// check and the stdio wire, in this process, which serves nothing until
// the wire is made.
import { PassThrough } from 'node:stream';
import t from 'tap';
import { resultProblem } from '../host/mounts/result-check.js';
import { checkedText } from '../host/vocabulary/checked-result-text.js';
import { StdioWire } from '../host/serve/stdio-wire.js';

const MAX_BYTES = 1 << 20;

t.test('no text is kept before a stdio wire serves; every checked result keeps its text once one does', async (t) => {
  const before = { content: [{ type: 'text', text: 'over HTTP' }] };
  t.equal(resultProblem('tools/call', before, MAX_BYTES), undefined, 'the result is valid');
  t.equal(checkedText(before), undefined, 'without a stdio wire, its text is not kept');

  new StdioWire(new PassThrough(), new PassThrough());
  const after = { content: [{ type: 'text', text: 'over stdio' }] };
  t.equal(resultProblem('tools/call', after, MAX_BYTES), undefined);
  t.equal(checkedText(after), JSON.stringify(after), 'with one, the text its check made is kept for the wire');
});

t.test('results checked one after another before either is written each keep their own text, read once', async (t) => {
  new StdioWire(new PassThrough(), new PassThrough());
  const first = { content: [{ type: 'text', text: 'first' }] };
  const second = { content: [{ type: 'text', text: 'second' }] };
  t.equal(resultProblem('tools/call', first, MAX_BYTES), undefined);
  t.equal(resultProblem('tools/call', second, MAX_BYTES), undefined);
  // Changed after its check: what is written is still the text that was checked.
  first.content[0]!.text = 'changed';
  t.equal(checkedText(second), '{"content":[{"type":"text","text":"second"}]}', 'the last checked, from its slot');
  t.equal(checkedText(first), '{"content":[{"type":"text","text":"first"}]}', 'the one before, kept beside it');
  t.equal(checkedText({ content: [] }), undefined, 'a result never checked has no text');
  const again = { content: [{ type: 'text', text: 'again' }] };
  t.equal(resultProblem('tools/call', again, MAX_BYTES), undefined);
  t.equal(checkedText(again), JSON.stringify(again));
  t.equal(checkedText(again), undefined, 'once written, the slot holds it no longer');
});

t.test('a result over the size bound is refused with its size in bytes, counted in UTF-8', async (t) => {
  // 400 three-byte characters: 400 UTF-16 units, 1,200 bytes and more once quoted and wrapped.
  const result = { content: [{ type: 'text', text: '€'.repeat(400) }] };
  t.match(resultProblem('tools/call', result, 1_000)?.what, /a result of 12\d\d bytes, over its limit of 1000 bytes/);
  t.equal(resultProblem('tools/call', result, 1_300), undefined, 'under the bound: valid');
});
