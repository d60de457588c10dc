// Static bearer tokens as `http.auth.tokens` lists them (`name:secret`), for the tests of what each identity may
// do: the config names the identity, the client sends only the secret.

export const ALICE = 'alice:alice-token-0123456789';
export const CI = 'ci:ci-token-0123456789abcdef';

/** What a client sends as its bearer token: the part after the name. */
export const secretOf = (named: string): string => named.slice(named.indexOf(':') + 1);
