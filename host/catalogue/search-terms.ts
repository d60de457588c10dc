import { stemmer } from 'stemmer';

/**
 * How tool definitions and search queries become terms, the same way for
 * both, so that a user's words meet a tool's: names split at every case
 * change, `_`, `-`, `.` and `/` (`list_pull_requests`, `getIssue`,
 * `gh.search`), words lowercased and stemmed ("repositories" and
 * "repository" are one term), and the words that carry no meaning in a
 * request ("please", "the", "I want to") dropped.
 */

/** Words that say nothing about which tool is meant: with them a query matches every description. */
const STOP_WORDS = new Set(
  (
    'a about an and any are as at be been by can could do does for from get give given have how i if in into is it ' +
    'its me my of on or our please should so some that the their them then there these this those to us was we what ' +
    'when where which who will with would you your want need like let lets using use via one all new'
  ).split(' '),
);

/**
 * Words users and tool authors say differently for one action or thing:
 * a query word also looks for these, at a lower weight than its own
 * (tool-search.ts). Stems, both sides.
 */
const SYNONYMS: Record<string, string[]> = {
  remov: ['delet'],
  delet: ['remov'],
  eras: ['delet'],
  find: ['search', 'lookup'],
  look: ['search', 'find'],
  search: ['find', 'queri'],
  fetch: ['retriev', 'read'],
  retriev: ['fetch'],
  show: ['list', 'view'],
  view: ['read'],
  add: ['creat', 'sum'],
  make: ['creat'],
  creat: ['add'],
  open: ['creat', 'navig'],
  chang: ['updat', 'edit'],
  modifi: ['updat', 'edit'],
  edit: ['updat'],
  updat: ['edit'],
  run: ['execut'],
  execut: ['run'],
  launch: ['start', 'run'],
  stop: ['cancel'],
  snapshot: ['screenshot'],
  screenshot: ['snapshot'],
  photo: ['imag'],
  pictur: ['imag', 'screenshot'],
  imag: ['pictur'],
  folder: ['directori'],
  directori: ['folder'],
  doc: ['document'],
  messag: ['post'],
  post: ['messag'],
  repo: ['repositori'],
  pr: ['pull', 'request'],
  mr: ['merg', 'request'],
  ticket: ['issu'],
  bug: ['issu'],
  page: ['navig'],
  go: ['navig'],
  visit: ['navig'],
  websit: ['url', 'navig'],
  web: ['search'],
  text: ['type'],
  type: ['fill'],
  click: ['press'],
  sql: ['queri'],
  databas: ['db'],
  db: ['databas'],
  translat: ['languag'],
  address: ['geocod'],
  direct: ['rout'],
  weather: ['forecast'],
  big: ['size'],
  small: ['tini'],
  larg: ['size'],
  forget: ['delet'],
  high: ['elev'],
  altitud: ['elev'],
  sum: ['add'],
  total: ['sum'],
  slow: ['long'],
  popup: ['dialog'],
  alert: ['dialog', 'monitor'],
  prod: ['environ'],
  product: ['environ'],
  stage: ['environ'],
  rotat: ['orient'],
  landscap: ['orient'],
  portrait: ['orient'],
  crash: ['error', 'issu'],
};

/**
 * A definition's words: split at separators, and a word written in camel
 * case (`getIssue`, `GitHub`) both whole and at its case changes, so that
 * "get issue" finds `getIssue` and "github" finds `GitHub`.
 */
export function splitWords(text: string): string[] {
  const whole = queryWords(text);
  const parts = queryWords(text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2'));
  return parts.length === whole.length ? whole : [...whole, ...parts.filter((part) => !whole.includes(part))];
}

/** A query's words: split at separators, lowercased (a user's "GitHub" is one word). */
export function queryWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

/**
 * A word as the index keeps it, or undefined when it carries no meaning.
 * Stemmed unless `stem` is false (bench/discovery.ts measures the ranking
 * without it, to show what stemming is worth).
 */
export function termOf(word: string, stem = true): string | undefined {
  if (STOP_WORDS.has(word)) return undefined;
  return stem ? stemmer(word) : word;
}

/** The other terms a query term also looks for. */
export function synonymsOf(term: string): readonly string[] {
  return SYNONYMS[term] ?? [];
}
