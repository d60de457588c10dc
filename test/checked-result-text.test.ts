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
