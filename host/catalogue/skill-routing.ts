import { ErrorCode, RpcError } from '../rpc-error.js';
import type { CallHooks } from '../vocabulary/call-hooks.js';
import type { Generation } from './generation.js';
import { assertReadsAsSpelled } from './uri-spelling.js';
import { askedUri, mayReach, resourceCandidates, type UriOwner } from './routing.js';
import { servedSkill, servedUrisIn } from '../vocabulary/served-uris.js';
import { isPlainObject } from '../plain-object.js';
import { skillsSettingsOf } from './extension-capabilities.js';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;

/**
 * `skills/get` (SEP-2640) goes to the mount that listed the skill, else to
 * each mount serving skills whose entry's curation lets its URI through (a
 * skill need not be listed to be got), asking each for its own URI; only
 * "unknown skill" (-32602) falls through to the next. The entry comes back
 * with its URIs as `skills/list` shows them (served-uris.ts).
 */
export async function getSkill(generation: Generation, params: Params, hooks: CallHooks): Promise<Result> {
  const uri = String(params.uri);
  assertReadsAsSpelled(uri);
  const unknown = () =>
    new RpcError(
      ErrorCode.InvalidParams,
      `Unknown skill "${uri}": no mounted plugin serves it. Fix: use a uri from skills/list.`,
      { uri },
    );
  if (!mayReach(generation, uri, hooks.identity)) throw unknown();
  const listed = generation.index.owners.skills.get(uri);
  const candidates: UriOwner[] = listed ? [listed] : [];
  for (const mount of generation.mounts) {
    const own = askedUri(generation, mount, uri);
    const serves = mount.isUp && mount.provides('skills') && own !== undefined;
    if (serves && mount !== listed?.mount && generation.viewOf(mount).curation.serves('skills', own)) {
      candidates.push({ mount, own });
    }
  }
  for (const { mount, own } of candidates) {
    try {
      const result = await mount.request('skills/get', { ...params, uri: own }, hooks);
      return isPlainObject(result.skill) ? { ...result, skill: servedSkill(mount.spec.prefix, result.skill) } : result;
    } catch (error) {
      if (!(error instanceof RpcError) || error.code !== ErrorCode.InvalidParams) throw error;
    }
  }
  // Never the plugin's own words: they would name its own URI, and under access rules tell a denied skill from an unknown one.
  throw unknown();
}

/**
 * `resources/directory/read` (SEP-2640's `directoryRead`) goes where a read
 * of the same URI would, among the mounts that declared `directoryRead`;
 * a prefixed mount is asked for its own URI and its children come back
 * under its prefix. "Not a directory" (-32602) falls through to the next
 * candidate; the last one's answer is the client's.
 */
export async function readDirectory(generation: Generation, params: Params, hooks: CallHooks): Promise<Result> {
  const uri = String(params.uri);
  assertReadsAsSpelled(uri);
  const candidates = mayReach(generation, uri, hooks.identity)
    ? resourceCandidates(generation, uri).filter(({ mount }) => skillsSettingsOf(mount)?.directoryRead === true)
    : [];
  let last: unknown = new RpcError(
    ErrorCode.InvalidParams,
    `Not a directory: "${uri}": no mounted plugin serves a directory at that URI. Fix: use a URI that skills/list or resources/directory/read shows as a directory.`,
    { uri },
  );
  for (const { mount, own } of candidates) {
    try {
      const result = await mount.request('resources/directory/read', { ...params, uri: own }, hooks);
      return servedUrisIn(mount.spec.prefix, result, 'resources');
    } catch (error) {
      if (!(error instanceof RpcError) || error.code !== ErrorCode.InvalidParams) throw error;
      if (own === uri && !generation.config.access) last = error;
    }
  }
  throw last;
}
