/**
 * A `url` entry's `auth` resolved: the client's credential read from where
 * the config says it is (the environment or a file, never the config text),
 * so the mount holds everything it needs to get its tokens.
 */
import { resolve } from 'node:path';
import { configWhere } from '../config/problem-wording.js';
import type { ResolvedConfig, UpstreamAuthConfig } from '../config/types.js';
import { HostError, type Problem } from '../errors.js';
import { takeSecretEnv } from '../secret-env.js';
import { readSecretFile } from '../secret-file.js';
import type { UpstreamCredentials } from './types.js';

/** The credentials of a validated `auth` at `path`, or why they cannot be read. */
export function resolveUpstreamCredentials(
  auth: UpstreamAuthConfig,
  path: string,
  config: ResolvedConfig,
): { credentials: UpstreamCredentials } | { problems: Problem[] } {
  const mode = auth.clientCredentials ? 'clientCredentials' : 'tokenExchange';
  const client = (auth.clientCredentials ?? auth.tokenExchange)!;
  const at = (key: string) => configWhere(config.file, `${path}.${mode}.${key}`);
  let secret: UpstreamCredentials['secret'];
  try {
    if (client.privateKeyFile !== undefined) {
      const pem = readSecretFile(resolve(config.dir, client.privateKeyFile), at('privateKeyFile'), 'the private key');
      secret = { kind: 'privateKey', pem, algorithm: client.algorithm ?? 'RS256' };
    } else if (client.clientSecretFile !== undefined) {
      const file = resolve(config.dir, client.clientSecretFile);
      secret = {
        kind: 'clientSecret',
        value: readSecretFile(file, at('clientSecretFile'), 'the client secret').trim(),
      };
    } else {
      const value = takeSecretEnv(client.clientSecretEnv!);
      if (!value) {
        return {
          problems: [
            {
              where: at('clientSecretEnv'),
              what: `the environment variable ${client.clientSecretEnv} is ${value === '' ? 'empty' : 'not set'}: it should hold the secret of client "${client.clientId}".`,
              fix: `start mcp-host with ${client.clientSecretEnv} set to the client's secret, or use clientSecretFile.`,
            },
          ],
        };
      }
      secret = { kind: 'clientSecret', value };
    }
  } catch (error) {
    // readSecretFile's refusal, naming the file and the key.
    return { problems: [error as HostError] };
  }
  return {
    credentials: {
      mode,
      clientId: client.clientId,
      secret,
      ...(client.scopes && { scopes: client.scopes }),
      ...(client.tokenUrl && { tokenUrl: client.tokenUrl }),
      ...(client.issuer && { issuer: client.issuer }),
      ...(client.resource && { resource: client.resource }),
      ...(auth.tokenExchange?.audience && { audience: auth.tokenExchange.audience }),
    },
  };
}
