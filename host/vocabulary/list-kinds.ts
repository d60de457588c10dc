import { SKILLS_EXTENSION } from './served-uris.js';
import type { ServerCapabilities } from '@modelcontextprotocol/server';

/**
 * The lists a catalogue is made of. A mount's tools and prompts are renamed
 * by its prefix; resources and templates never are (a URI is already a
 * namespace, and rewriting it would make it a lie), except the `ui://` and
 * `skill://` URIs of a prefixed mount (served-uris.ts). Skills (SEP-2640,
 * `skills/list`) are a list of the Skills extension, judged by URI as
 * resources are.
 */
export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates' | 'skills';

interface ListKindInfo {
  /** The JSON-RPC method that lists it. */
  method: string;
  /** The field of the result holding the items. */
  field: string;
  /** The server capability that announces it. */
  capability: keyof ServerCapabilities;
  /** The notification announcing a change in it. */
  changed: string;
  /** Singular noun, for messages. */
  noun: string;
  /** The extension a mount declares (`capabilities.extensions`) to serve it, for a list of an extension. */
  extension?: string;
}

export const LIST_KINDS: Record<ListKind, ListKindInfo> = {
  tools: {
    method: 'tools/list',
    field: 'tools',
    capability: 'tools',
    changed: 'notifications/tools/list_changed',
    noun: 'tool',
  },
  prompts: {
    method: 'prompts/list',
    field: 'prompts',
    capability: 'prompts',
    changed: 'notifications/prompts/list_changed',
    noun: 'prompt',
  },
  resources: {
    method: 'resources/list',
    field: 'resources',
    capability: 'resources',
    changed: 'notifications/resources/list_changed',
    noun: 'resource',
  },
  resourceTemplates: {
    method: 'resources/templates/list',
    field: 'resourceTemplates',
    capability: 'resources',
    changed: 'notifications/resources/list_changed',
    noun: 'resource template',
  },
  // A skills server announces a change to its skills as one to its resources (the SDK's SkillCatalog does).
  skills: {
    method: 'skills/list',
    field: 'skills',
    capability: 'resources',
    changed: 'notifications/resources/list_changed',
    noun: 'skill',
    extension: SKILLS_EXTENSION,
  },
};

export const ALL_LIST_KINDS = Object.keys(LIST_KINDS) as ListKind[];

/** The lists a `list_changed` notification can name; templates and skills change with resources. */
export type ChangedList = 'tools' | 'prompts' | 'resources';

/** The `list_changed` a change to this kind of list is announced with. */
export function changedListOf(kind: ListKind): ChangedList {
  return judgedAs(kind);
}

/**
 * The config list (curation's, access rules') that judges a kind: templates
 * and skills are judged with resources, by URI.
 */
export function judgedAs(kind: ListKind): 'tools' | 'prompts' | 'resources' {
  return kind === 'resourceTemplates' || kind === 'skills' ? 'resources' : kind;
}

/** The list kinds a `list_changed` notification method refers to. */
export function kindsChangedBy(method: string): ListKind[] {
  return ALL_LIST_KINDS.filter((kind) => LIST_KINDS[kind].changed === method);
}

/** Items are plain objects from the wire; the host reads only these fields. */
export interface ListItem {
  name?: string;
  uri?: string;
  uriTemplate?: string;
  [key: string]: unknown;
}

/** The identifying key of an item: its name, URI or URI template. */
export function keyOf(kind: ListKind, item: ListItem): string {
  if (kind === 'resources' || kind === 'skills') return String(item.uri);
  if (kind === 'resourceTemplates') return String(item.uriTemplate);
  return String(item.name);
}
