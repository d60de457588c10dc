// How a remote mount gets its tokens (host/mounts/upstream-authorization.ts)
// in-process, against a real OpenID provider on loopback and an upstream's
// protected-resource metadata served here: what an entry without `auth` is
// told to add, the host's own token (client credentials) and its refusals,
// the issuer a credential is bound to (the entry's, else the first it went
// to), each caller's token exchanged per grant, and the outages' messages;
// against token endpoints of its own, what a token request sends, a
// refusal's words, the instant a token is renewed (the test's own clock, no
// waiting) and how many exchanged tokens are kept (two, not 1,000).
// test/upstream-auth.test.ts and test/upstream-attacks.test.ts do the same
// through a host; this file is quick enough for `npm run mutation`.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { decodeJwt, exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import type { RemoteSpec, UpstreamCredentials } from '../../host/loader/types.js';
import {
  CallerAuthRefused,
  EXCHANGED_TOKENS_KEPT,
  UpstreamAuthRefused,
  UpstreamAuthorization,
} from '../../host/mounts/upstream-authorization.js';
import { installInstrumentation, stopTelemetry, type Instrumentation } from '../../host/sinks/telemetry.js';
import type { Identity } from '../../host/vocabulary/identity.js';
import { TOKEN_EXCHANGE_GRANT, startOpenIdProvider, type OpenIdProvider } from '../helpers/openid-provider.js';

const SECRET = 'mcp-host-secret-0123456789abcdef';

interface Upstream {
  url: string;
  origin: string;
  metadataUrl: string;
  /** The protected-resource metadata served at the well-known URL (undefined: 404). */
  metadata: Record<string, unknown> | undefined;
  /** Authorization server metadata (RFC 8414) served at the origin's well-known URL (undefined: 404). */
  serverMetadata?: Record<string, unknown>;
  /** Protected-resource metadata served at `${origin}/elsewhere`, a URL only a 401 names (undefined: 404). */
  elsewhere?: Record<string, unknown>;
}

/** An upstream's origin serving only its protected-resource metadata (RFC 9728). */
async function upstream(t: Test, metadata?: (url: string) => Record<string, unknown>): Promise<Upstream> {
  const served: Upstream = { url: '', origin: '', metadataUrl: '', metadata: undefined };
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-protected-resource/mcp' && served.metadata) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served.metadata));
      return;
    }
    if (req.url === '/.well-known/oauth-authorization-server' && served.serverMetadata) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served.serverMetadata));
      return;
    }
    if (req.url === '/elsewhere' && served.elsewhere) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served.elsewhere));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  served.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  served.url = `${served.origin}/mcp`;
  served.metadataUrl = `${served.origin}/.well-known/oauth-protected-resource/mcp`;
  served.metadata = metadata?.(served.url);
  return served;
}

/** Authorization server metadata (RFC 8414) the SDK accepts, for the upstream's origin as its own server, with `more`. */
const serverMetadataOf = (up: Upstream, more: Record<string, unknown> = {}): Record<string, unknown> => ({
  issuer: up.origin,
  authorization_endpoint: `${up.origin}/authorize`,
  token_endpoint: `${up.origin}/token`,
  response_types_supported: ['code'],
  ...more,
});

const specOf = (url: string, auth?: UpstreamCredentials): RemoteSpec =>
  ({ kind: 'remote', url, headers: {}, prefix: 'up', label: 'up', ...(auth && { auth }) }) as unknown as RemoteSpec;

const credentials = (more: Partial<UpstreamCredentials> = {}): UpstreamCredentials => ({
  mode: 'clientCredentials',
  clientId: 'mcp-host',
  secret: { kind: 'clientSecret', value: SECRET },
  ...more,
});

/** The 401 an upstream answers, naming its metadata or not. */
const unauthorized = (metadataUrl?: string) =>
  ({
    response: new Response(null, {
      status: 401,
      headers: { 'www-authenticate': metadataUrl ? `Bearer resource_metadata="${metadataUrl}"` : 'Bearer' },
    }),
  }) as unknown as Parameters<UpstreamAuthorization['onUnauthorized']>[0];

/** What `run` is refused with: the error, which must be of `type`. */
async function refusedWith<E extends Error>(
  t: Test,
  run: () => Promise<unknown>,
  type: new (...args: never[]) => E,
): Promise<E> {
  const error = await run().then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(error instanceof type)) {
    t.fail(`not refused with ${type.name}: ${String(error)}`);
    throw new Error('not refused');
  }
  return error;
}

const granted = (idp: OpenIdProvider, grant: string) => idp.granted[grant] ?? 0;

t.test('without auth: a 401 tells what the entry needs', async (t) => {
  const idp = await startOpenIdProvider(t);

  await t.test(
    'the authorization server its metadata names, with the token endpoint, resource, scopes and grants',
    async (t) => {
      const up = await upstream(t, (url) => ({
        resource: url,
        authorization_servers: [idp.issuer],
        scopes_supported: ['mcp', 'notes'],
      }));
      const auth = new UpstreamAuthorization(specOf(up.url));
      t.equal(await auth.token(), undefined, 'no token to send');
      const error = await refusedWith(t, () => auth.onUnauthorized(unauthorized(up.metadataUrl)), UpstreamAuthRefused);
      t.match(
        error.outage.cause,
        `${up.url} requires an OAuth token (HTTP 401) from the authorization server ${idp.issuer} (token endpoint ${idp.issuer}/token; resource ${up.url}; scopes mcp notes; grants `,
      );
      t.match(error.outage.cause, /client_credentials.*\), and the entry gives the host no way to get one\.$/);
      t.equal(
        error.outage.fix,
        `register a client for mcp-host at ${idp.issuer} and add to the entry auth: { clientCredentials: { clientId: "…", clientSecretEnv: "…" } } (the host's own token), or auth: { tokenExchange: { … } } (each caller's token exchanged); see docs/upstream-auth.md.`,
      );
      t.equal(error.message, `${error.outage.cause} Fix: ${error.outage.fix}`);
      t.equal(error.name, 'UpstreamAuthRefused');
      t.equal(await auth.token(), undefined, 'still none');
      // The server moved: the next 401 naming the metadata has it read afresh.
      up.metadata = { resource: up.url, authorization_servers: ['http://127.0.0.1:1'] };
      const moved = await refusedWith(t, () => auth.onUnauthorized(unauthorized(up.metadataUrl)), UpstreamAuthRefused);
      t.equal(
        moved.outage.cause,
        `${up.url} requires an OAuth token (HTTP 401) from the authorization server http://127.0.0.1:1 (resource ${up.url}; its metadata could not be read: fetch failed), and the entry gives the host no way to get one.`,
      );
    },
  );

  await t.test('no protected-resource metadata: the upstream’s origin as its own authorization server', async (t) => {
    const up = await upstream(t);
    up.serverMetadata = serverMetadataOf(up);
    const auth = new UpstreamAuthorization(specOf(up.url));
    const error = await refusedWith(t, () => auth.onUnauthorized(unauthorized()), UpstreamAuthRefused);
    t.equal(
      error.outage.cause,
      `${up.url} requires an OAuth token (HTTP 401) from the authorization server ${up.origin} (token endpoint ${up.origin}/token), and the entry gives the host no way to get one.`,
    );
    up.serverMetadata.grant_types_supported = ['client_credentials', TOKEN_EXCHANGE_GRANT];
    const grants = await refusedWith(
      t,
      () => new UpstreamAuthorization(specOf(up.url)).onUnauthorized(unauthorized()),
      UpstreamAuthRefused,
    );
    t.equal(
      grants.outage.cause,
      `${up.url} requires an OAuth token (HTTP 401) from the authorization server ${up.origin} (token endpoint ${up.origin}/token; grants client_credentials, ${TOKEN_EXCHANGE_GRANT}), and the entry gives the host no way to get one.`,
      'its grants listed',
    );
  });

  await t.test(
    'protected-resource metadata naming no authorization server: the upstream’s origin is its own',
    async (t) => {
      const up = await upstream(t, (url) => ({ resource: url }));
      up.serverMetadata = serverMetadataOf(up);
      const error = await refusedWith(
        t,
        () => new UpstreamAuthorization(specOf(up.url)).onUnauthorized(unauthorized(up.metadataUrl)),
        UpstreamAuthRefused,
      );
      t.equal(
        error.outage.cause,
        `${up.url} requires an OAuth token (HTTP 401) from the authorization server ${up.origin} (token endpoint ${up.origin}/token; resource ${up.url}), and the entry gives the host no way to get one.`,
      );
    },
  );

  await t.test('protected-resource metadata at the URL the 401 names, not the well-known one', async (t) => {
    const up = await upstream(t);
    up.elsewhere = { resource: up.url, authorization_servers: [idp.issuer] };
    const error = await refusedWith(
      t,
      () => new UpstreamAuthorization(specOf(up.url)).onUnauthorized(unauthorized(`${up.origin}/elsewhere`)),
      UpstreamAuthRefused,
    );
    t.match(
      error.outage.cause,
      `${up.url} requires an OAuth token (HTTP 401) from the authorization server ${idp.issuer} (token endpoint ${idp.issuer}/token; resource ${up.url}; grants `,
    );
  });

  await t.test(
    'protected-resource metadata the 401 names that cannot be reached: unreadable, no server guessed at the origin',
    async (t) => {
      const up = await upstream(t);
      up.serverMetadata = serverMetadataOf(up);
      const error = await refusedWith(
        t,
        () =>
          new UpstreamAuthorization(specOf(up.url)).onUnauthorized(
            unauthorized('http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp'),
          ),
        UpstreamAuthRefused,
      );
      t.same(error.outage, {
        cause: `${up.url} refused the host with HTTP 401 and has OAuth metadata that could not be read (fetch failed).`,
        fix: 'if the server wants an OAuth token, add to the entry auth: { clientCredentials: { clientId: "…", clientSecretEnv: "…", tokenUrl: "…" } } naming its token endpoint; if it wants an API key, headers: { Authorization: "Bearer …" }; see docs/upstream-auth.md.',
      });
    },
  );

  await t.test('metadata past the size bound: unreadable, not read whole', async (t) => {
    const up = await upstream(t);
    up.serverMetadata = serverMetadataOf(up, { padding: 'x'.repeat(300 * 1024) });
    const error = await refusedWith(
      t,
      () => new UpstreamAuthorization(specOf(up.url)).onUnauthorized(unauthorized()),
      UpstreamAuthRefused,
    );
    t.equal(
      error.outage.cause,
      `${up.url} refused the host with HTTP 401 and has OAuth metadata that could not be read (${up.origin}/.well-known/oauth-authorization-server answered more than 262144 bytes, far more than OAuth metadata or a token answer takes).`,
    );
  });

  await t.test(
    'an authorization server whose metadata cannot be read: named, and the token endpoint asked for',
    async (t) => {
      const up = await upstream(t, (url) => ({ resource: url, authorization_servers: ['http://127.0.0.1:1'] }));
      const error = await refusedWith(
        t,
        () => new UpstreamAuthorization(specOf(up.url)).onUnauthorized(unauthorized(up.metadataUrl)),
        UpstreamAuthRefused,
      );
      t.equal(
        error.outage.cause,
        `${up.url} requires an OAuth token (HTTP 401) from the authorization server http://127.0.0.1:1 (resource ${up.url}; its metadata could not be read: fetch failed), and the entry gives the host no way to get one.`,
      );
      t.equal(
        error.outage.fix,
        `register a client for mcp-host at http://127.0.0.1:1 and add to the entry auth: { clientCredentials: { clientId: "…", clientSecretEnv: "…", tokenUrl: "…" } } (the host's own token), or auth: { tokenExchange: { … } } (each caller's token exchanged); see docs/upstream-auth.md.`,
      );
    },
  );

  await t.test('no metadata at all: refused as any 401', async (t) => {
    const up = await upstream(t);
    const error = await refusedWith(
      t,
      () => new UpstreamAuthorization(specOf(up.url)).onUnauthorized(unauthorized()),
      UpstreamAuthRefused,
    );
    t.same(error.outage, {
      cause: `${up.url} refused the host with HTTP 401.`,
      fix: 'give the entry the credentials the server expects, e.g. headers: { Authorization: "Bearer …" }.',
    });
  });

  await t.test('metadata the SDK refuses: its fields named', async (t) => {
    // Protected-resource metadata the SDK refuses is taken as none; its origin's authorization server metadata is read.
    const up = await upstream(t, () => ({ authorization_servers: 'not a list' }));
    up.serverMetadata = { issuer: up.origin, token_endpoint: `${up.origin}/token` };
    const error = await refusedWith(
      t,
      () => new UpstreamAuthorization(specOf(up.url)).onUnauthorized(unauthorized(up.metadataUrl)),
      UpstreamAuthRefused,
    );
    t.match(
      error.outage.cause,
      `${up.url} refused the host with HTTP 401 and has OAuth metadata that could not be read (it is not metadata the MCP SDK accepts (authorization_endpoint: `,
    );
    t.match(error.outage.cause, /; response_types_supported: [^;]+\)\)\.$/);
    t.equal(
      error.outage.fix,
      'if the server wants an OAuth token, add to the entry auth: { clientCredentials: { clientId: "…", clientSecretEnv: "…", tokenUrl: "…" } } naming its token endpoint; if it wants an API key, headers: { Authorization: "Bearer …" }; see docs/upstream-auth.md.',
    );
    up.serverMetadata = ['not', 'an', 'object'] as unknown as Record<string, unknown>;
    const whole = await refusedWith(
      t,
      () => new UpstreamAuthorization(specOf(up.url)).onUnauthorized(unauthorized()),
      UpstreamAuthRefused,
    );
    t.match(
      whole.outage.cause,
      '(it is not metadata the MCP SDK accepts ((the document): ',
      'the document itself named',
    );
    up.serverMetadata = serverMetadataOf(up, { grant_types_supported: ['client_credentials', 7] });
    const nested = await refusedWith(
      t,
      () => new UpstreamAuthorization(specOf(up.url)).onUnauthorized(unauthorized()),
      UpstreamAuthRefused,
    );
    t.equal(
      nested.outage.cause,
      `${up.url} refused the host with HTTP 401 and has OAuth metadata that could not be read (it is not metadata the MCP SDK accepts (grant_types_supported.1: Invalid input: expected string, received number)).`,
      'a field inside a list named by its path',
    );
  });

  await t.test('a resource that is not the upstream’s: refused, naming both', async (t) => {
    const up = await upstream(t, () => ({
      resource: 'https://other.example/mcp',
      authorization_servers: [idp.issuer],
    }));
    const error = await refusedWith(
      t,
      () => new UpstreamAuthorization(specOf(up.url)).onUnauthorized(unauthorized(up.metadataUrl)),
      UpstreamAuthRefused,
    );
    t.same(error.outage, {
      cause: `${up.url} publishes protected-resource metadata (${up.metadataUrl}) naming the resource "https://other.example/mcp", which is not this server (${up.url}): the host asks for no token for another server's resource, since this server would be sent it (RFC 9728 §3.3).`,
      fix: `check the entry's url: a server that names another's resource may be collecting tokens for it; if "https://other.example/mcp" truly is this server's resource identifier, name it in the entry: auth.clientCredentials.resource: "https://other.example/mcp".`,
    });
    const found = await refusedWith(
      t,
      () => new UpstreamAuthorization(specOf(up.url, credentials())).onUnauthorized(unauthorized()),
      UpstreamAuthRefused,
    );
    t.same(
      found.outage,
      {
        cause: `${up.url} publishes protected-resource metadata naming the resource "https://other.example/mcp", which is not this server (${up.url}): the host asks for no token for another server's resource, since this server would be sent it (RFC 9728 §3.3).`,
        fix: `check the entry's url: a server that names another's resource may be collecting tokens for it; if "https://other.example/mcp" truly is this server's resource identifier, name it in the entry: auth.clientCredentials.resource: "https://other.example/mcp".`,
      },
      'found without the 401 naming it; the entry’s own key named',
    );
  });

  await t.test('the upstream’s own resource under its path is accepted', async (t) => {
    const up = await upstream(t, (url) => ({
      resource: `${new URL(url).origin}/`,
      authorization_servers: [idp.issuer],
    }));
    const error = await refusedWith(
      t,
      () => new UpstreamAuthorization(specOf(up.url)).onUnauthorized(unauthorized(up.metadataUrl)),
      UpstreamAuthRefused,
    );
    t.match(error.outage.cause, `resource ${up.origin}/;`);
  });
});

t.test('client credentials: the host’s own token', async (t) => {
  const idp = await startOpenIdProvider(t);

  await t.test('found by the 401, kept until shortly before it expires', async (t) => {
    const up = await upstream(t, (url) => ({
      resource: url,
      authorization_servers: [idp.issuer],
      scopes_supported: ['mcp'],
    }));
    const auth = new UpstreamAuthorization(specOf(up.url, credentials()));
    t.equal(await auth.token(), undefined, 'before the first 401 the server is not known: no token');
    const before = granted(idp, 'client_credentials');
    await auth.onUnauthorized(unauthorized(up.metadataUrl));
    const token = await auth.token();
    t.match(
      decodeJwt(token!),
      { aud: up.url, client_id: 'mcp-host', scope: 'mcp' },
      'for the resource, with its scopes',
    );
    t.equal(await auth.token(), token, 'kept');
    t.equal(granted(idp, 'client_credentials'), before + 1, 'one token request');
    await auth.onUnauthorized(unauthorized());
    t.not(await auth.token(), token, 'a 401 gets a new one');
    t.equal(granted(idp, 'client_credentials'), before + 2);
  });

  await t.test('concurrent requests share one token request', async (t) => {
    const up = await upstream(t, (url) => ({ resource: url, authorization_servers: [idp.issuer] }));
    const auth = new UpstreamAuthorization(specOf(up.url, credentials({ scopes: ['notes'] })));
    const before = granted(idp, 'client_credentials');
    await Promise.all([auth.onUnauthorized(unauthorized()), auth.onUnauthorized(unauthorized())]);
    const [a, b] = await Promise.all([auth.token(), auth.token()]);
    t.equal(a, b);
    t.equal(decodeJwt(a!).scope, 'notes', 'the entry’s scopes over the metadata’s');
    t.ok(granted(idp, 'client_credentials') - before <= 2);
  });

  await t.test('a tokenUrl: no discovery, its origin the issuer, a token at once', async (t) => {
    const auth = new UpstreamAuthorization(
      specOf(
        'http://127.0.0.1:1/mcp',
        credentials({ tokenUrl: `${idp.issuer}/token`, resource: 'https://up.example/mcp' }),
      ),
    );
    const token = await auth.token();
    t.match(decodeJwt(token!), { aud: 'https://up.example/mcp', client_id: 'mcp-host' });
    // A 401 naming metadata elsewhere does not move the credential: the entry says where it goes.
    await auth.onUnauthorized(unauthorized('http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp'));
    t.ok(await auth.token());
  });

  await t.test('a secret the server refuses: an outage naming the client, the resource and scopes', async (t) => {
    const up = await upstream(t, (url) => ({ resource: url, authorization_servers: [idp.issuer] }));
    const auth = new UpstreamAuthorization(
      specOf(up.url, credentials({ secret: { kind: 'clientSecret', value: 'wrong' }, scopes: ['mcp', 'notes'] })),
    );
    const error = await refusedWith(t, () => auth.onUnauthorized(unauthorized()), UpstreamAuthRefused);
    t.match(error.outage.cause, `${idp.issuer} gave client "mcp-host" no token for ${up.url}: invalid_client (`);
    t.equal(
      error.outage.fix,
      `check the client at ${idp.issuer}: that it is registered, may use the client_credentials grant for the resource ${up.url} with the scopes mcp notes, and that its secret matches the one the entry's auth reads.`,
    );
    const keyed = new UpstreamAuthorization(
      specOf(
        'http://127.0.0.1:1/mcp',
        credentials({ tokenUrl: `${idp.issuer}/token`, secret: { kind: 'privateKey', pem: 'x', algorithm: 'RS256' } }),
      ),
    );
    const refused = await refusedWith(t, () => keyed.token(), UpstreamAuthRefused);
    t.match(refused.outage.cause, `${idp.issuer} gave client "mcp-host" no token for http://127.0.0.1:1/mcp: `);
    t.equal(
      refused.outage.fix,
      `check the client at ${idp.issuer}: that it is registered, may use the client_credentials grant, and that its public key matches the one the entry's auth reads.`,
    );
  });

  await t.test('a private key: the token asked with a private_key_jwt assertion it signs', async (t) => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    await idp.register({
      clientId: 'mcp-host-key',
      jwks: { keys: [{ ...(await exportJWK(publicKey)), alg: 'ES256' }] },
    });
    const before = granted(idp, 'client_credentials');
    const keyed = new UpstreamAuthorization(
      specOf(
        'http://127.0.0.1:1/mcp',
        credentials({
          clientId: 'mcp-host-key',
          tokenUrl: `${idp.issuer}/token`,
          resource: 'https://up.example/mcp',
          secret: { kind: 'privateKey', pem: await exportPKCS8(privateKey), algorithm: 'ES256' },
        }),
      ),
    );
    t.match(decodeJwt((await keyed.token())!), { aud: 'https://up.example/mcp', client_id: 'mcp-host-key' });
    t.equal(granted(idp, 'client_credentials'), before + 1);
  });

  await t.test('metadata that cannot say the token endpoint: an outage asking for tokenUrl', async (t) => {
    const up = await upstream(t, (url) => ({ resource: url, authorization_servers: ['http://127.0.0.1:1'] }));
    const error = await refusedWith(
      t,
      () => new UpstreamAuthorization(specOf(up.url, credentials())).onUnauthorized(unauthorized()),
      UpstreamAuthRefused,
    );
    t.same(error.outage, {
      cause: `${up.url} refused the host with HTTP 401 and has OAuth metadata that could not be read (fetch failed): the host cannot tell where to get a token.`,
      fix: 'name the token endpoint in the entry: auth.clientCredentials.tokenUrl (and resource, if the server wants one).',
    });
    const none = await upstream(t);
    const nothing = await refusedWith(
      t,
      () => new UpstreamAuthorization(specOf(none.url, credentials())).onUnauthorized(unauthorized()),
      UpstreamAuthRefused,
    );
    t.equal(
      nothing.outage.cause,
      `${none.url} refused the host with HTTP 401 and publishes no OAuth metadata: the host cannot tell where to get a token.`,
    );
  });
});

t.test('the issuer a credential goes to', async (t) => {
  const idp = await startOpenIdProvider(t);
  const other = await startOpenIdProvider(t);

  await t.test('the entry’s issuer: a server naming another is refused before the credential leaves', async (t) => {
    const up = await upstream(t, (url) => ({ resource: url, authorization_servers: [other.issuer] }));
    const before = granted(other, 'client_credentials');
    const error = await refusedWith(
      t,
      () =>
        new UpstreamAuthorization(specOf(up.url, credentials({ issuer: idp.issuer }))).onUnauthorized(unauthorized()),
      UpstreamAuthRefused,
    );
    t.same(error.outage, {
      cause: `${up.url} names the authorization server ${other.issuer}, but client "mcp-host" is registered at ${idp.issuer} (the entry's auth.clientCredentials.issuer): its credential is sent nowhere else.`,
      fix: `if the server has moved to ${other.issuer}, register the client there and change issuer; otherwise check the entry's url: a server that names another authorization server may be collecting credentials.`,
    });
    t.equal(granted(other, 'client_credentials'), before, 'nothing asked of the other server');
  });

  await t.test('no issuer: trust on first use, the first server the only one after', async (t) => {
    const up = await upstream(t, (url) => ({ resource: url, authorization_servers: [idp.issuer] }));
    const auth = new UpstreamAuthorization(specOf(up.url, credentials()));
    await auth.onUnauthorized(unauthorized());
    t.equal(decodeJwt((await auth.token())!).iss, idp.issuer);
    up.metadata = { resource: up.url, authorization_servers: [other.issuer] };
    const before = granted(other, 'client_credentials');
    const error = await refusedWith(t, () => auth.onUnauthorized(unauthorized(up.metadataUrl)), UpstreamAuthRefused);
    t.same(error.outage, {
      cause: `${up.url} names the authorization server ${other.issuer}, but client "mcp-host" is registered at ${idp.issuer} (where the host got its first token for it): its credential is sent nowhere else.`,
      fix: `if the server has moved to ${other.issuer}, register the client there and set auth.clientCredentials.issuer to it (or restart the host); otherwise check the entry's url: a server that names another authorization server may be collecting credentials.`,
    });
    t.equal(granted(other, 'client_credentials'), before, 'the credential not sent to the second');
    up.metadata = { resource: up.url, authorization_servers: [idp.issuer] };
    await auth.onUnauthorized(unauthorized(up.metadataUrl));
    t.equal(decodeJwt((await auth.token())!).iss, idp.issuer, 'the first one still serves');
  });
});

t.test('token exchange: each caller’s token exchanged, per grant', async (t) => {
  const idp = await startOpenIdProvider(t);
  const up = await upstream(t, (url) => ({
    resource: url,
    authorization_servers: [idp.issuer],
    scopes_supported: ['mcp'],
  }));
  const exchange = (more: Partial<UpstreamCredentials> = {}) =>
    new UpstreamAuthorization(specOf(up.url, credentials({ mode: 'tokenExchange', issuer: idp.issuer, ...more })));
  const caller = (sub: string, more: Partial<Identity> = {}): Identity => ({
    kind: 'user',
    name: sub,
    claims: { iss: idp.issuer, sub, client_id: 'agent' },
    scopes: ['mcp'],
    token: idp.subjectToken(sub),
    ...more,
  });
  const exchanges = () => granted(idp, TOKEN_EXCHANGE_GRANT);

  await t.test('a caller’s requests carry a token exchanged for its own; the host’s its own', async (t) => {
    const auth = exchange({ audience: 'https://up.example' });
    const alice = caller('alice');
    const token = (await auth.asCaller(alice, () => auth.token()))!;
    t.match(decodeJwt(token), { sub: 'alice', aud: up.url, client_id: 'mcp-host', scope: 'mcp' });
    t.not(token, alice.token, 'never the caller’s own token');
    const own = decodeJwt((await auth.token())!);
    t.match(own, { sub: 'mcp-host', client_id: 'mcp-host' }, 'outside a caller, the host’s own token');
  });

  await t.test('cached per grant: subject, client and scopes', async (t) => {
    const auth = exchange();
    const alice = caller('alice');
    const first = await auth.asCaller(alice, () => auth.token());
    const before = exchanges();
    t.equal(await auth.asCaller(alice, () => auth.token()), first, 'the same caller: the same token');
    t.equal(
      await auth.asCaller({ ...alice, token: idp.subjectToken('alice') }, () => auth.token()),
      first,
      'a refreshed token of the same grant',
    );
    t.equal(exchanges(), before, 'no new exchange');
    const others: [string, Identity][] = [
      [
        'another client of the same user',
        caller('alice', { claims: { iss: idp.issuer, sub: 'alice', client_id: 'other' } }),
      ],
      ['fewer scopes', caller('alice', { scopes: [] })],
      ['another subject', caller('bob')],
      [
        'a client whose id is the user’s sub',
        caller('alice', { kind: 'client', claims: { iss: idp.issuer, client_id: 'alice' } }),
      ],
      [
        'another issuer',
        caller('alice', { claims: { iss: 'https://other.example', sub: 'alice', client_id: 'agent' } }),
      ],
    ];
    for (const [what, identity] of others) {
      const count = exchanges();
      const token = await auth.asCaller(identity, () => auth.token());
      t.not(token, first, what);
      t.equal(exchanges(), count + 1, `${what}: exchanged anew`);
    }
    const count = exchanges();
    t.equal(
      await auth.asCaller(caller('alice', { scopes: ['b', 'a'] }), () => auth.token()),
      await auth.asCaller(caller('alice', { scopes: ['a', 'b'] }), () => auth.token()),
      'scopes in any order are one grant',
    );
    t.equal(exchanges(), count + 1);
  });

  await t.test('a refused exchanged token: exchanged again, once', async (t) => {
    const auth = exchange();
    const alice = caller('alice');
    const [first, second] = await auth.asCaller(alice, async () => {
      const first = await auth.token();
      await auth.onUnauthorized(unauthorized());
      return [first, await auth.token()];
    });
    t.not(second, first);
    t.equal(decodeJwt(second!).sub, 'alice');
    t.equal(await auth.asCaller(alice, () => auth.token()), second, 'the new one cached');
  });

  await t.test('a caller with no OAuth token: refused, that request alone', async (t) => {
    const auth = exchange();
    const cases: [Identity, string][] = [
      [{ kind: 'stdio', name: 'stdio', claims: {}, scopes: [] }, 'a stdio client'],
      [
        { kind: 'token', name: 'token-1', tokenName: 'ci', claims: {}, scopes: [] },
        'a client of the static token "ci"',
      ],
      [
        { kind: 'token', name: 'token-1c9e05a2', claims: {}, scopes: [] },
        'a client of the static token "token-1c9e05a2"',
      ],
      [{ kind: 'anonymous', name: 'anonymous', claims: {}, scopes: [] }, 'a client that sent no token'],
      [{ kind: 'user', name: 'alice', claims: { sub: 'alice' }, scopes: [] }, 'a client that sent no token'],
    ];
    for (const [identity, who] of cases) {
      const error = await refusedWith(t, () => auth.asCaller(identity, async () => 'sent'), CallerAuthRefused);
      t.equal(
        error.message,
        `mount "up" calls ${up.url} as each caller, exchanging the caller's OAuth token for one of its own (auth.tokenExchange), and this is ${who}: it has no OAuth token to exchange. Fix: connect over HTTP with an access token the host accepts (http.oauth), or mount the server with auth.clientCredentials to call it as the host.`,
      );
      t.equal(error.name, 'CallerAuthRefused');
    }
  });

  await t.test('an exchange the server refuses: that caller refused, saying what to allow', async (t) => {
    const auth = exchange();
    const revoked = caller('carol');
    idp.revokeSubjectToken(revoked.token!);
    const error = await refusedWith(t, () => auth.asCaller(revoked, async () => 'sent'), CallerAuthRefused);
    t.equal(
      error.message,
      `mount "up": ${idp.issuer} would not exchange the token of "carol" for one for ${up.url}: invalid_grant (grant request is invalid). Fix: allow client "mcp-host" the token-exchange grant (RFC 8693) at ${idp.issuer} for the resource ${up.url}, and check that the caller's token is one ${idp.issuer} accepts as a subject token.`,
    );
    const bare = new UpstreamAuthorization(
      specOf(up.url, credentials({ mode: 'tokenExchange', tokenUrl: `${idp.issuer}/token`, issuer: idp.issuer })),
    );
    const plain = await refusedWith(t, () => bare.asCaller(revoked, async () => 'sent'), CallerAuthRefused);
    t.match(plain.message, `at ${idp.issuer}, and check`, 'no resource, none named');
  });
});

t.test('each token request counted by mount, grant and outcome (the metrics)', async (t) => {
  const idp = await startOpenIdProvider(t);
  const counted: string[] = [];
  installInstrumentation({
    upstreamTokenRequested: (mount: string, grant: string, outcome: string) =>
      counted.push(`${mount} ${grant} ${outcome}`),
    shutdown: async () => {},
  } as unknown as Instrumentation);
  t.teardown(stopTelemetry);
  const tokenUrl = `${idp.issuer}/token`;
  const url = 'http://127.0.0.1:1/mcp';
  await new UpstreamAuthorization(specOf(url, credentials({ tokenUrl }))).token();
  const wrong = credentials({ tokenUrl, secret: { kind: 'clientSecret', value: 'wrong' } });
  await refusedWith(t, () => new UpstreamAuthorization(specOf(url, wrong)).token(), UpstreamAuthRefused);
  const exchanging = new UpstreamAuthorization(
    specOf(url, credentials({ mode: 'tokenExchange', tokenUrl, issuer: idp.issuer })),
  );
  const alice: Identity = {
    kind: 'user',
    name: 'alice',
    claims: { sub: 'alice' },
    scopes: [],
    token: idp.subjectToken('alice'),
  };
  await exchanging.asCaller(alice, async () => undefined);
  await refusedWith(
    t,
    () =>
      exchanging.asCaller({ ...alice, name: 'bob', claims: { sub: 'bob' }, token: 'unknown' }, async () => undefined),
    CallerAuthRefused,
  );
  t.same(counted, [
    'up client_credentials ok',
    'up client_credentials refused',
    'up token_exchange ok',
    'up token_exchange refused',
  ]);
});

interface TokenEndpoint {
  url: string;
  issuer: string;
  /** Each token request's form, in order. */
  asked: URLSearchParams[];
  /** The `expires_in` of the tokens answered (none when undefined). */
  expiresIn?: number;
  /** An OAuth error response answered instead of a token, with HTTP 400 (none when undefined). */
  refusal?: Record<string, unknown>;
}

/**
 * A token endpoint at `path` (anything else is 404) answering every request with a new token, `token-N` for the
 * Nth request, or with its `refusal`; it records each request's form.
 */
async function tokenEndpoint(t: Test, path = '/token'): Promise<TokenEndpoint> {
  const endpoint: TokenEndpoint = { url: '', issuer: '', asked: [] };
  const server = createServer((req, res) => {
    if (req.url !== path) {
      res.writeHead(404).end();
      return;
    }
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      endpoint.asked.push(new URLSearchParams(body));
      if (endpoint.refusal) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(endpoint.refusal));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          access_token: `token-${endpoint.asked.length}`,
          token_type: 'Bearer',
          ...(endpoint.expiresIn !== undefined && { expires_in: endpoint.expiresIn }),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  endpoint.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  endpoint.url = `${endpoint.issuer}${path}`;
  return endpoint;
}

t.test('what a token request sends, and how long its token is used', async (t) => {
  const endpoint = await tokenEndpoint(t);
  const url = 'http://127.0.0.1:1/mcp';
  const alice: Identity = { kind: 'user', name: 'alice', claims: { sub: 'alice' }, scopes: [], token: 'alice-token' };

  await t.test('a token exchange: the caller’s token as the subject, the audience, scopes and resource', async (t) => {
    const auth = new UpstreamAuthorization(
      specOf(
        url,
        credentials({
          mode: 'tokenExchange',
          tokenUrl: endpoint.url,
          issuer: endpoint.issuer,
          audience: 'https://up.example',
          scopes: ['a', 'b'],
          resource: 'https://up.example/mcp',
        }),
      ),
    );
    const token = await auth.asCaller(alice, () => auth.token());
    t.equal(token, `token-${endpoint.asked.length}`);
    t.same(Object.fromEntries(endpoint.asked.at(-1)!), {
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: 'alice-token',
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience: 'https://up.example',
      scope: 'a b',
      resource: 'https://up.example/mcp',
    });
    const bare = new UpstreamAuthorization(
      specOf(url, credentials({ mode: 'tokenExchange', tokenUrl: endpoint.url, issuer: endpoint.issuer })),
    );
    await bare.asCaller(alice, () => bare.token());
    t.same(Object.keys(Object.fromEntries(endpoint.asked.at(-1)!)).sort(), [
      'grant_type',
      'requested_token_type',
      'subject_token',
      'subject_token_type',
    ]);
  });

  await t.test('a token without expires_in is kept; one already expired is renewed at the next request', async (t) => {
    endpoint.expiresIn = undefined;
    const kept = new UpstreamAuthorization(specOf(url, credentials({ tokenUrl: endpoint.url, scopes: ['a'] })));
    const first = await kept.token();
    t.equal(endpoint.asked.at(-1)!.get('scope'), 'a');
    t.equal(endpoint.asked.at(-1)!.get('grant_type'), 'client_credentials');
    t.equal(await kept.token(), first);
    endpoint.expiresIn = 3600;
    const hour = new UpstreamAuthorization(specOf(url, credentials({ tokenUrl: endpoint.url })));
    const token = await hour.token();
    t.equal(await hour.token(), token, 'an hour’s token is kept');
    t.notOk(endpoint.asked.at(-1)!.has('scope'), 'no scopes, none asked');
    endpoint.expiresIn = 0;
    const spent = new UpstreamAuthorization(specOf(url, credentials({ tokenUrl: endpoint.url })));
    const once = await spent.token();
    t.not(await spent.token(), once, 'renewed');
    const exchanging = new UpstreamAuthorization(
      specOf(url, credentials({ mode: 'tokenExchange', tokenUrl: endpoint.url, issuer: endpoint.issuer })),
    );
    const exchanged = await exchanging.asCaller(alice, () => exchanging.token());
    t.not(await exchanging.asCaller(alice, () => exchanging.token()), exchanged, 'an exchanged token too');
  });

  await t.test('the token endpoint the entry names, at whatever path', async (t) => {
    const elsewhere = await tokenEndpoint(t, '/oauth2/v1/token');
    const auth = new UpstreamAuthorization(specOf(url, credentials({ tokenUrl: elsewhere.url })));
    t.equal(await auth.token(), 'token-1');
    t.equal(elsewhere.asked.length, 1, 'asked there, not at /token');
  });

  await t.test('a refusal in the server’s own words: its error code, and its description if it has one', async (t) => {
    const refused = await tokenEndpoint(t);
    t.teardown(() => void (refused.refusal = undefined));
    const cases: [Record<string, unknown>, string][] = [
      [
        { error: 'invalid_client', error_description: 'client authentication failed' },
        'invalid_client (client authentication failed)',
      ],
      [{ error: 'invalid_client' }, 'invalid_client'],
      [{ error: 'invalid_scope', error_description: '' }, 'invalid_scope'],
    ];
    for (const [refusal, said] of cases) {
      refused.refusal = refusal;
      const error = await refusedWith(
        t,
        () => new UpstreamAuthorization(specOf(url, credentials({ tokenUrl: refused.url }))).token(),
        UpstreamAuthRefused,
      );
      t.equal(error.outage.cause, `${refused.issuer} gave client "mcp-host" no token for ${url}: ${said}.`, said);
    }
    const unreachable = await refusedWith(
      t,
      () => new UpstreamAuthorization(specOf(url, credentials({ tokenUrl: 'http://127.0.0.1:1/token' }))).token(),
      UpstreamAuthRefused,
    );
    t.equal(
      unreachable.outage.cause,
      `http://127.0.0.1:1 gave client "mcp-host" no token for ${url}: fetch failed.`,
      'no answer at all: the failure in its own words',
    );
  });
});

t.test('when a token is renewed, and how many exchanged tokens are kept', async (t) => {
  const endpoint = await tokenEndpoint(t);
  const url = 'http://127.0.0.1:1/mcp';
  const exchangingSpec = () =>
    specOf(url, credentials({ mode: 'tokenExchange', tokenUrl: endpoint.url, issuer: endpoint.issuer }));
  const user = (sub: string): Identity => ({
    kind: 'user',
    name: sub,
    claims: { sub },
    scopes: [],
    token: `${sub}-token`,
  });

  /**
   * For a 3,600 s and a 100 s token, on the test's own clock (the renewal instant reached exactly, without waiting
   * for it): the token `tokenOn` gives is kept until 30 s before it expires, or a tenth of its lifetime for the
   * short one, and asked anew at that instant.
   */
  const renewedOnTime = async (
    t: Test,
    tokenOn: (now: () => number) => () => Promise<string | undefined>,
  ): Promise<void> => {
    let clock = 1_000_000;
    for (const [expiresIn, keptMs] of [
      [3600, 3_570_000],
      [100, 90_000],
    ] as const) {
      endpoint.expiresIn = expiresIn;
      const token = tokenOn(() => clock);
      const asked = clock;
      const first = await token();
      clock = asked + keptMs - 1;
      t.equal(await token(), first, `expires_in ${expiresIn}: kept until ${keptMs} ms after it was asked`);
      clock = asked + keptMs;
      const renewed = await token();
      t.not(renewed, first, `expires_in ${expiresIn}: asked anew ${keptMs} ms after it was asked`);
      t.equal(await token(), renewed, 'the new one kept');
    }
  };

  await t.test(
    'the host’s own token: used until 30 s before it expires, or a tenth of its lifetime before when short',
    (t) =>
      renewedOnTime(t, (now) => {
        const auth = new UpstreamAuthorization(specOf(url, credentials({ tokenUrl: endpoint.url })), { now });
        return () => auth.token();
      }),
  );

  await t.test('an exchanged token: renewed at the same instants', (t) =>
    renewedOnTime(t, (now) => {
      const auth = new UpstreamAuthorization(exchangingSpec(), { now });
      return () => auth.asCaller(user('alice'), () => auth.token());
    }),
  );

  await t.test('exchanged tokens kept: at most `kept`, the oldest forgotten', async (t) => {
    t.equal(EXCHANGED_TOKENS_KEPT, 1000, 'a mount keeps 1,000 by default');
    endpoint.expiresIn = undefined;
    const auth = new UpstreamAuthorization(exchangingSpec(), { kept: 2 });
    const tokenOf = (sub: string) => auth.asCaller(user(sub), () => auth.token());
    const alice = await tokenOf('alice');
    const bob = await tokenOf('bob');
    t.equal(await tokenOf('alice'), alice, 'two kept');
    t.equal(await tokenOf('bob'), bob, 'two kept');
    const carol = await tokenOf('carol');
    t.equal(await tokenOf('bob'), bob, 'a third: bob kept');
    t.equal(await tokenOf('carol'), carol, 'a third: carol kept');
    const again = await tokenOf('alice');
    t.not(again, alice, 'a third: alice, the oldest, forgotten (exchanged anew)');
    t.equal(await tokenOf('carol'), carol, 'carol kept');
    // A token exchanged anew (its first refused) is the newest again: bob's arrival drops alice, not carol.
    const refreshed = await auth.asCaller(user('carol'), async () => {
      await auth.onUnauthorized(unauthorized());
      return auth.token();
    });
    t.not(refreshed, carol, 'carol’s refused token exchanged anew');
    const count = endpoint.asked.length;
    await tokenOf('bob');
    t.equal(endpoint.asked.length, count + 1, 'bob, forgotten, exchanged anew');
    t.equal(await tokenOf('carol'), refreshed, 'carol’s new token kept');
    t.equal(endpoint.asked.length, count + 1, 'carol not exchanged again');
    t.not(await tokenOf('alice'), again, 'alice, now the oldest, forgotten');
  });
});
