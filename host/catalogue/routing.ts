import { UriTemplate } from '@modelcontextprotocol/server';
import { ErrorCode, RpcError } from '../rpc-error.js';
import type { Mount } from '../mounts/mount.js';
import type { CallHooks } from '../vocabulary/call-hooks.js';
import type { Owner } from './catalogue-index.js';
import type { Generation } from './generation.js';
import { keyOf } from '../vocabulary/list-kinds.js';
import { DRIFT_FIX, describeDrift } from '../pins/drift.js';
import { ANONYMOUS_IDENTITY, type Identity } from '../vocabulary/identity.js';
import { accessViewOf } from './access-rules.js';
import { removedServerError } from './virtual-server.js';
import { assertReadsAsSpelled } from './uri-spelling.js';
import { ownUri, prefixOf, servedUrisIn } from '../vocabulary/served-uris.js';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;

/**
 * Who serves a composed tool or prompt name. The index answers for every
 * name a mount listed, exactly as listed. A name under a prefix that no
 * listed item has (`res.DELETE_ALL`, `res..delete_all`) is unknown, not
 * forwarded: the plugin might look names up loosely (ignoring case) and run
 * an item curation left out; a tool a plugin adds is known once its
 * `list_changed` has the host list it again. Only a prefixed mount that is
 * down is asked, so that the call is refused naming its state. A flat name
 * nobody listed is unknown too: asking each flat mount in turn would run a
 * failing tool's side effects twice. The one exception is a lone flat mount
 * (see `loneFlatOwner`).
 */
export function ownerOfName(
  generation: Generation,
  kind: 'tools' | 'prompts',
  composed: string,
): Pick<Owner, 'mount' | 'own'> {
  const listed = generation.index.owners[kind].get(composed);
  if (listed) return listed;
  const noun = kind === 'tools' ? 'tool' : 'prompt';
  const drift = generation.index.withheld[kind].get(composed);
  if (drift) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `${capitalized(noun)} "${composed}" is withheld: ${describeDrift(drift)}, and the host config sets pins: 'refuse'. Fix: ${DRIFT_FIX}`,
    );
  }
  const { separator } = generation.config;
  for (const mount of generation.mounts) {
    const prefix = mount.spec.prefix;
    // A mount that is down may never have said what it provides: its call is refused naming its state.
    if (prefix !== undefined && composed.startsWith(prefix + separator) && !mount.isUp) {
      const own = unlistedOwnName(generation, mount, kind, composed.slice(prefix.length + separator.length));
      if (own !== undefined) return { mount, own };
    }
  }
  const lone = loneFlatOwner(generation, kind, composed);
  if (lone) return { mount: lone, own: composed };
  throw unknownName(kind, composed);
}

function unknownName(kind: 'tools' | 'prompts', composed: string): RpcError {
  const noun = kind === 'tools' ? 'tool' : 'prompt';
  return new RpcError(
    ErrorCode.InvalidParams,
    `Unknown ${noun} "${composed}": no mounted plugin serves it. Fix: use a name from ${kind}/list.`,
  );
}

/**
 * The owner of a name `identity` may use. One its access rules do not allow
 * is answered as a name no plugin serves, word for word: a refusal that
 * differed would tell the client the item exists.
 */
function ownerFor(
  generation: Generation,
  kind: 'tools' | 'prompts',
  composed: string,
  identity: Identity | undefined,
): Pick<Owner, 'mount' | 'own'> {
  assertServerKept(generation, identity);
  if (!accessViewOf(generation.config, identity ?? ANONYMOUS_IDENTITY).allows(kind, composed)) {
    throw unknownName(kind, composed);
  }
  return ownerOfName(generation, kind, composed);
}

/** A client of a virtual server a reload removed is told so, not that every name it knew is unknown. */
function assertServerKept(generation: Generation, identity: Identity | undefined): void {
  const removed = removedServerError(generation.config, identity);
  if (removed) throw removed;
}

/** Whether `identity` may read (subscribe to, complete) the URI or template `uri`. */
export function mayReach(generation: Generation, uri: string, identity: Identity | undefined): boolean {
  assertServerKept(generation, identity);
  const view = accessViewOf(generation.config, identity ?? ANONYMOUS_IDENTITY);
  return view.allows('resources', uri) || view.allows('resourceTemplates', uri);
}

/**
 * The plugin's own name for a name under a down mount's prefix, or
 * undefined when the host would not serve it: the entry's curation leaves it
 * out, or a lock is present under `pins: 'refuse'` (an item missing from the
 * mount's copy is missing from the lock too).
 */
function unlistedOwnName(
  generation: Generation,
  mount: Mount,
  kind: 'tools' | 'prompts',
  served: string,
): string | undefined {
  if (generation.lock && generation.config.pins === 'refuse') return undefined;
  return generation.viewOf(mount).curation.ownName(kind, served);
}

/**
 * The flat mount an unlisted name goes to unchanged, when its answer would be
 * the plugin's own: it is the generation's only flat mount (one candidate,
 * asked once, so no side effect runs twice), no prefix claims the name, its
 * entry's curation does not define which names exist (include, exclude or
 * rename), and no lock under `pins: 'refuse'` withholds unlisted names.
 * Without this, a server that answers unknown names itself (an `isError`
 * result, as conformance scenarios accept) would pass directly and fail
 * mounted flat behind the host (DESIGN.md, "Proxying: the host is transparent").
 */
function loneFlatOwner(generation: Generation, kind: 'tools' | 'prompts', composed: string): Mount | undefined {
  const { separator } = generation.config;
  const flat = generation.mounts.filter((mount) => mount.spec.prefix === undefined);
  const claimed = generation.mounts.some(
    (mount) => mount.spec.prefix !== undefined && composed.startsWith(mount.spec.prefix + separator),
  );
  if (flat.length !== 1 || claimed || (generation.lock && generation.config.pins === 'refuse')) return undefined;
  // With access rules, an unlisted name is never forwarded: the plugin's answer would tell a denied name from an unknown one.
  if (generation.config.access) return undefined;
  const [mount] = flat as [Mount];
  // As for a prefixed name: a mount that is down may never have said what it provides, and is refused naming its state.
  const mayServe = mount.provides(kind) || !mount.isUp;
  return mayServe && !generation.viewOf(mount).curation.definesNames(kind) ? mount : undefined;
}

function capitalized(word: string): string {
  return word[0]!.toUpperCase() + word.slice(1);
}

export function callTool(generation: Generation, params: Params, hooks: CallHooks): Promise<Result> {
  const owner = ownerFor(generation, 'tools', String(params.name), hooks.identity);
  return owner.mount.request('tools/call', { ...params, name: owner.own }, hooks);
}

export function getPrompt(generation: Generation, params: Params, hooks: CallHooks): Promise<Result> {
  const owner = ownerFor(generation, 'prompts', String(params.name), hooks.identity);
  return owner.mount.request('prompts/get', { ...params, name: owner.own }, hooks);
}

/** A mount that may serve a URI a client sent, and the mount's own URI for it. */
export interface UriOwner {
  mount: Mount;
  /** The URI the mount is asked for: the client's, or a prefixed mount's own `ui://` or `skill://` URI (served-uris.ts). */
  own: string;
}

/**
 * The mounts that may serve a URI, most likely first: the mount that listed
 * it, then mounts with a template matching it, then every other mount that
 * serves resources (a resource need not be listed to be readable). Only the
 * mount that listed it is named when it is down, so that its reader is told
 * why rather than "not found". A `ui://` or `skill://` URI is asked of a
 * prefixed mount only under that mount's prefix, as the mount's own URI.
 */
export function resourceCandidates(generation: Generation, uri: string): UriOwner[] {
  const candidates: UriOwner[] = [];
  const add = (mount: Mount, own: string) =>
    candidates.some((c) => c.mount === mount) || candidates.push({ mount, own });
  const listed = generation.index.owners.resources.get(uri);
  if (listed) add(listed.mount, listed.own);
  // A URI an entry's curation leaves out does not exist for clients on that mount, listed or not.
  const up = generation.mounts.flatMap((mount): UriOwner[] => {
    const own = askedUri(generation, mount, uri);
    return mount.isUp && own !== undefined && generation.viewOf(mount).curation.serves('resources', own)
      ? [{ mount, own }]
      : [];
  });
  for (const { mount, own } of up) if (servesTemplateMatching(generation, mount, own)) add(mount, own);
  for (const { mount, own } of up) if (mount.provides('resources')) add(mount, own);
  return candidates;
}

/**
 * The URI `mount` is asked for when a client sends `uri`, or undefined when
 * the mount does not serve it (served-uris.ts): a prefixed mount's own
 * `ui://` or `skill://` URI; never, on a flat mount, one under a prefixed
 * mount's prefix, which is that mount's alone (a flat mount that also
 * served it would be read, or subscribed to, in its owner's place).
 */
export function askedUri(generation: Generation, mount: Mount, uri: string): string | undefined {
  if (mount.spec.prefix === undefined) {
    const prefix = prefixOf(uri);
    if (prefix !== undefined && generation.mounts.some((other) => other.spec.prefix === prefix)) return undefined;
  }
  return ownUri(mount.spec.prefix, uri);
}

/** Whether one of the templates a mount serves (curation applied) matches a URI of its own. */
function servesTemplateMatching(generation: Generation, mount: Mount, own: string): boolean {
  const view = generation.viewOf(mount);
  return mount.items.resourceTemplates.some(
    (t) => view.curate('resourceTemplates', t) !== undefined && templateMatches(keyOf('resourceTemplates', t), own),
  );
}

/**
 * `resources/read` asks each candidate in turn and falls through only on
 * "not found": any other failure is the owner's real answer and goes to the
 * client as it is. A mount asked for its own URI in place of the client's
 * answers with its contents' URIs served as the client asked (served-uris.ts).
 */
export async function readResource(generation: Generation, params: Params, hooks: CallHooks): Promise<Result> {
  const uri = String(params.uri);
  // Judged, and forwarded in `params` unchanged, only when the plugin reads it as spelled (uri-spelling.ts).
  assertReadsAsSpelled(uri);
  const notFound = () =>
    new RpcError(ErrorCode.ResourceNotFound, `Resource not found: "${uri}": no mounted plugin serves it.`, { uri });
  if (!mayReach(generation, uri, hooks.identity)) throw notFound();
  let lastNotFound: unknown;
  for (const { mount, own } of resourceCandidates(generation, uri)) {
    try {
      if (own === uri) return await mount.request('resources/read', params, hooks);
      const result = await mount.request('resources/read', { ...params, uri: own }, hooks);
      return servedUrisIn(mount.spec.prefix, result, 'contents');
    } catch (error) {
      if (!isNotFound(error, own)) throw error;
      lastNotFound = own === uri ? error : undefined;
    }
  }
  // Curated out or never there, alike: "not found" (-32002, which the SDK sends as -32602 with data.uri).
  // Under access rules always in the host's words, as a denied URI is answered.
  throw (generation.config.access ? undefined : lastNotFound) ?? notFound();
}

/**
 * The one mount a subscription to `uri` belongs to: the first candidate.
 * `identity`, when given, must be allowed the URI; one denied it is answered
 * as for a URI nobody serves. A URI the plugin would read as another is
 * refused (uri-spelling.ts), in both eras: a 2025 `resources/subscribe` and
 * a 2026-07-28 listen stream's `resourceSubscriptions` come here.
 */
export function subscriptionOwner(generation: Generation, uri: string, identity?: Identity): Mount {
  assertReadsAsSpelled(uri);
  const allowed = identity === undefined || mayReach(generation, uri, identity);
  // Only as the mount's own URI: a prefixed mount's served ui:// or skill:// URI is not followed (its updates would name the mount's).
  const owner = (allowed ? resourceCandidates(generation, uri) : []).find(
    ({ mount, own }) => own === uri && (mount.capabilities.resources as { subscribe?: boolean } | undefined)?.subscribe,
  )?.mount;
  if (!owner) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Cannot subscribe to "${uri}": no mounted plugin that supports resource subscriptions serves it.`,
      { uri },
    );
  }
  return owner;
}

/**
 * `completion/complete` goes where the reference points: a prompt reference
 * like `prompts/get` (renamed back to the mount's own name), a resource
 * template reference to the mount that listed that template.
 */
export function complete(generation: Generation, params: Params, hooks: CallHooks): Promise<Result> {
  const ref = (params.ref ?? {}) as { type?: string; name?: string; uri?: string };
  if (ref.type === 'ref/prompt') {
    const owner = ownerFor(generation, 'prompts', String(ref.name), hooks.identity);
    return owner.mount.request('completion/complete', { ...params, ref: { ...ref, name: owner.own } }, hooks);
  }
  const uri = String(ref.uri);
  assertReadsAsSpelled(uri);
  const listed = generation.index.owners.resourceTemplates.get(uri) ?? generation.index.owners.resources.get(uri);
  const owner: UriOwner | undefined = !mayReach(generation, uri, hooks.identity)
    ? undefined
    : (listed ??
      generation.mounts
        .map((mount) => ({ mount, own: askedUri(generation, mount, uri) }))
        .find((c): c is UriOwner => c.own !== undefined && servesTemplateMatching(generation, c.mount, c.own)));
  if (!owner) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Cannot complete for "${uri}": no mounted plugin lists that resource template. Fix: use a uriTemplate from resources/templates/list.`,
    );
  }
  const asked = owner.own === uri ? params : { ...params, ref: { ...ref, uri: owner.own } };
  return owner.mount.request('completion/complete', asked, hooks);
}

function templateMatches(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

/**
 * "Not found" as SDKs say it: -32002 before 2026-07-28, -32602 naming the
 * URI (in `data.uri` or the message) since.
 */
function isNotFound(error: unknown, uri: string): boolean {
  if (!(error instanceof RpcError)) return false;
  if (error.code === ErrorCode.ResourceNotFound) return true;
  if (error.code !== ErrorCode.InvalidParams) return false;
  const data = error.data as { uri?: unknown } | undefined;
  return data?.uri === uri || /not found/i.test(error.message);
}
