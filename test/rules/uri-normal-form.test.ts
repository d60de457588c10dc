// A resource URI's normal form (host/catalogue/uri-normal-form.ts), computed
// in-process: each spelling of one resource that a rule must not let through.
// test/curation-spelling.test.ts asks a host for the same spellings.
import t from 'tap';
import { uriNormalForm } from '../../host/catalogue/uri-normal-form.js';

const CASES: [string, string, string][] = [
  ['the scheme and host in lower case', 'SECRET://Keys/A', 'secret://keys/A'],
  ['user info keeps its case', 'S://User@Host:80/x', 's://User@host:80/x'],
  ['the last @ ends the user info', 'S://a@B@Host/x', 's://a@B@host/x'],
  ['unreserved characters decoded', 'file:///%70rivate/%7E%2d%5F%2E%41%7a%30', 'file:///private/~-_.Az0'],
  ['other encodings kept, in upper case', 'file:///a%2fb%3a%c3%a9', 'file:///a/b%3A%C3%A9'],
  ['%2F in the authority kept encoded (and the host lower-cased)', 's://h%2Fx/y', 's://h%2fx/y'],
  ['a dot decoded in the host', 's://%41b%2e/y', 's://ab./y'],
  ['runs of / as one', 'file:////private//x', 'file:///private/x'],
  ['dot segments resolved', 'file:///safe/%2e%2e/private/./x', 'file:///private/x'],
  ['never above the root', 'file:///../../etc/passwd', 'file:///etc/passwd'],
  ['a path ending in .. names a directory', 'file:///a/b/..', 'file:///a/'],
  ['a path ending in . names a directory', 'file:///a/b/.', 'file:///a/b/'],
  ['.. in the middle', 'file:///a/b/../c', 'file:///a/c'],
  ['a segment like .x is kept', 'file:///a/.x/..y', 'file:///a/.x/..y'],
  ['file://localhost/ is file:///', 'file://LOCALHOST/x', 'file:///x'],
  ['a file host other than localhost is kept', 'file://Server/share/x', 'file://server/share/x'],
  ['localhost is only dropped for file', 'http://localhost/x', 'http://localhost/x'],
  ['file:/ is file:///', 'FILE:/private/x', 'file:///private/x'],
  ['another scheme without authority is left alone', 'urn:/a//b', 'urn:/a/b'],
  ['a relative path is not resolved', 'urn:a/../b', 'urn:a/../b'],
  ['file: without a slash gets no authority', 'file:x/y', 'file:x/y'],
  ['the query and fragment left as they are', 'S://H/a/../b?%70=/../#%41', 's://h/b?%70=/../#%41'],
  ['a fragment alone', 's://h/a#/../x', 's://h/a#/../x'],
  ['an empty authority', 'file:///x', 'file:///x'],
  ['a bare glob is unchanged', '**', '**'],
  ['a scheme must start with a letter', '1s://H/x', '1s://H/x'],
  ['a scheme may hold + . -', 'A+B.C-D://H', 'a+b.c-d://h'],
  ['a newline in the path is part of it', 's://h/a\n/../b', 's://h/b'],
  ['not a URI: a name with a space before the colon', 'a b:/x', 'a b:/x'],
];

t.test('uriNormalForm: one resource, one spelling', async (t) => {
  for (const [what, uri, normal] of CASES) t.equal(uriNormalForm(uri), normal, `${what}: ${uri}`);
});
