import type { ServerCapabilities } from '@modelcontextprotocol/server';

/**
 * The four lists a catalogue is made of. A mount's tools and prompts are
 * renamed by its prefix; resources and templates never are (a URI is already
 * a namespace, and rewriting it would make it a lie).
 */
export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

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
};

export const ALL_LIST_KINDS = Object.keys(LIST_KINDS) as ListKind[];

/** The lists a `list_changed` notification can name; templates change with resources. */
export type ChangedList = 'tools' | 'prompts' | 'resources';

/** The `list_changed` a change to this kind of list is announced with. */
export function changedListOf(kind: ListKind): ChangedList {
  return kind === 'resourceTemplates' ? 'resources' : kind;
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
  if (kind === 'resources') return String(item.uri);
  if (kind === 'resourceTemplates') return String(item.uriTemplate);
  return String(item.name);
}
