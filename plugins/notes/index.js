// @mcp-host/notes: notes kept in a JSON file, written with the v2 MCP SDK.
//
// Tools add, list, read, search and delete notes and export them all (slowly,
// with progress). Each note is also a resource, `note://{id}`, beside a
// `notes://index` overview, and the `review_note` prompt completes note ids.
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  completable,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { NoteStore, NotesError } from './store.js';

const { name: PACKAGE_NAME, version: VERSION } = createRequire(import.meta.url)('./package.json');

/** Where notes live when `options.file` is not set. */
export const DEFAULT_FILE = path.join(os.tmpdir(), 'mcp-host-notes.json');

const optionsSchema = z
  .object({
    file: z.string().min(1).optional(),
    exportDelayMs: z.number().int().min(0).max(60_000).optional(),
    now: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();

/**
 * @typedef {z.infer<typeof optionsSchema>} NotesOptions
 * @typedef {import('./store.js').Note} Note
 */

/** @param {unknown} options @returns {NotesOptions} */
function parseOptions(options) {
  const parsed = optionsSchema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const where = ['options', ...issue.path].join('.');
    return `${where}: ${issue.message}`;
  });
  throw new Error(
    `${PACKAGE_NAME}: invalid options: ${problems.join('; ')}. ` +
      'Expected { file?: string, exportDelayMs?: integer 0-60000, now?: ISO date-time }.',
  );
}

const noteUri = (/** @type {string} */ id) => `note://${id}`;

const noteShape = z.object({
  id: z.string(),
  uri: z.string(),
  title: z.string(),
  body: z.string(),
  tags: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const summaryShape = noteShape.pick({ id: true, uri: true, title: true, tags: true, updatedAt: true });

/** @param {Note} note */
const full = (note) => ({ ...note, uri: noteUri(note.id) });
/** @param {Note} note */
const summary = ({ id, title, tags, updatedAt }) => ({ id, uri: noteUri(id), title, tags, updatedAt });

/** @param {Note} note */
function toMarkdown(note) {
  const lines = [`# ${note.title}`, ''];
  if (note.tags.length) lines.push(`Tags: ${note.tags.join(', ')}`);
  lines.push(`Created: ${note.createdAt} · Updated: ${note.updatedAt}`, '');
  if (note.body) lines.push(note.body, '');
  return lines.join('\n');
}

/** @param {Note} note */
const oneLine = (note) => `- ${note.id}: ${note.title}${note.tags.length ? ` [${note.tags.join(', ')}]` : ''}`;

/** @param {Note} note @param {string | undefined} tag */
const hasTag = (note, tag) => tag === undefined || note.tags.some((t) => t.toLowerCase() === tag.toLowerCase());

/** @param {string} message */
const toolError = (message) => ({ content: [{ type: /** @type {const} */ ('text'), text: message }], isError: true });

/**
 * Runs a tool body; a NotesError (missing note, damaged file) becomes an
 * `isError` result the model can read and act on.
 * @template T
 * @param {() => Promise<T>} body
 */
async function guarded(body) {
  try {
    return await body();
  } catch (error) {
    if (error instanceof NotesError) return toolError(error.message);
    throw error;
  }
}

/** A snippet of `text` around the first occurrence of `term`. */
function snippet(text, term) {
  const at = text.toLowerCase().indexOf(term);
  if (at < 0) return text.slice(0, 80);
  const start = Math.max(0, at - 30);
  const end = Math.min(text.length, at + term.length + 50);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
}

const REVIEW_FOCUSES = ['clarity', 'completeness', 'action items', 'accuracy', 'tone', 'brevity'];

/** @type {import('./index.d.ts').NotesPlugin} */
const plugin = {
  create({ options, logger }) {
    const { file: fileOption, exportDelayMs = 100, now } = parseOptions(options);
    const file = path.resolve(fileOption ?? DEFAULT_FILE);
    const store = new NoteStore(file, now ? () => new Date(now) : () => new Date());
    logger?.debug({ file }, 'notes file');

    const server = new McpServer({ name: 'notes', version: VERSION });

    /** Note ids for completion: ids starting with the value first, then ids whose title contains it. */
    async function completeIds(/** @type {string} */ value) {
      let notes;
      try {
        notes = await store.all();
      } catch {
        return [];
      }
      const typed = (value ?? '').toLowerCase();
      const byId = notes.filter((note) => note.id.startsWith(typed)).map((note) => note.id);
      const byTitle = notes
        .filter((note) => !note.id.startsWith(typed) && note.title.toLowerCase().includes(typed))
        .map((note) => note.id);
      return [...byId.sort(), ...byTitle.sort()];
    }

    server.registerTool(
      'add_note',
      {
        title: 'Add a note',
        description: 'Save a new note. Its id is derived from the title and is returned with a note:// link.',
        inputSchema: z.object({
          title: z.string().trim().min(1).max(200).describe('A short title; the note id is made from it'),
          body: z.string().max(100_000).default('').describe('The text of the note (Markdown welcome)'),
          tags: z
            .array(z.string().trim().min(1).max(40))
            .max(20)
            .default([])
            .describe('Tags to file the note under, e.g. ["work", "todo"]'),
        }),
        outputSchema: noteShape,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      ({ title, body, tags }) =>
        guarded(async () => {
          const note = await store.add({ title, body, tags });
          logger?.debug({ id: note.id }, 'note added');
          server.sendResourceListChanged();
          return {
            content: [
              { type: 'text', text: `Added note "${note.title}" with id "${note.id}" (${noteUri(note.id)}).` },
              {
                type: 'resource_link',
                uri: noteUri(note.id),
                name: note.id,
                title: note.title,
                mimeType: 'text/markdown',
              },
            ],
            structuredContent: full(note),
          };
        }),
    );

    server.registerTool(
      'list_notes',
      {
        title: 'List notes',
        description: 'List every note (id, title, tags), oldest first, optionally only those with a tag.',
        inputSchema: z.object({ tag: z.string().min(1).optional().describe('Only notes with this tag') }),
        outputSchema: z.object({ count: z.number().int(), notes: z.array(summaryShape) }),
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      ({ tag }) =>
        guarded(async () => {
          const notes = (await store.all()).filter((note) => hasTag(note, tag));
          const text = notes.length
            ? notes.map(oneLine).join('\n')
            : tag === undefined
              ? 'No notes yet. Add one with add_note.'
              : `No notes tagged "${tag}".`;
          return {
            content: [{ type: 'text', text }],
            structuredContent: { count: notes.length, notes: notes.map(summary) },
          };
        }),
    );

    server.registerTool(
      'read_note',
      {
        title: 'Read a note',
        description: 'Read one note in full by its id.',
        inputSchema: z.object({ id: z.string().min(1).describe('The note id, as add_note or list_notes gave it') }),
        outputSchema: noteShape,
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      ({ id }) =>
        guarded(async () => {
          const note = await store.get(id);
          return { content: [{ type: 'text', text: toMarkdown(note) }], structuredContent: full(note) };
        }),
    );

    server.registerTool(
      'search_notes',
      {
        title: 'Search notes',
        description:
          'Find notes containing every word of the query (case-insensitive) in their title, body or tags. ' +
          'Title matches come first.',
        inputSchema: z.object({
          query: z.string().trim().min(1).max(200).describe('Words to look for, e.g. "budget march"'),
          tag: z.string().min(1).optional().describe('Only notes with this tag'),
        }),
        outputSchema: z.object({
          query: z.string(),
          count: z.number().int(),
          matches: z.array(z.object({ id: z.string(), uri: z.string(), title: z.string(), snippet: z.string() })),
        }),
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      ({ query, tag }) =>
        guarded(async () => {
          const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
          const found = [];
          for (const note of await store.all()) {
            if (!hasTag(note, tag)) continue;
            const haystack = `${note.title}\n${note.body}\n${note.tags.join(' ')}`.toLowerCase();
            if (!terms.every((term) => haystack.includes(term))) continue;
            const inTitle = terms.some((term) => note.title.toLowerCase().includes(term));
            found.push({ note, inTitle });
          }
          found.sort((a, b) => Number(b.inTitle) - Number(a.inTitle));
          const matches = found.map(({ note }) => ({
            id: note.id,
            uri: noteUri(note.id),
            title: note.title,
            snippet: snippet(note.body || note.title, terms[0]),
          }));
          const text = matches.length
            ? matches.map((m) => `- ${m.id}: ${m.title}\n  ${m.snippet}`).join('\n')
            : `No notes match "${query}".`;
          return { content: [{ type: 'text', text }], structuredContent: { query, count: matches.length, matches } };
        }),
    );

    server.registerTool(
      'delete_note',
      {
        title: 'Delete a note',
        description: 'Delete one note by its id. This cannot be undone.',
        inputSchema: z.object({ id: z.string().min(1).describe('The id of the note to delete') }),
        outputSchema: z.object({ id: z.string(), title: z.string(), deleted: z.literal(true) }),
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      },
      ({ id }) =>
        guarded(async () => {
          const note = await store.remove(id);
          logger?.debug({ id }, 'note deleted');
          server.sendResourceListChanged();
          return {
            content: [{ type: 'text', text: `Deleted note "${note.title}" (${note.id}).` }],
            structuredContent: { id: note.id, title: note.title, deleted: true },
          };
        }),
    );

    server.registerTool(
      'export_notes',
      {
        title: 'Export notes',
        description:
          'Export every note (or those with a tag) as one Markdown or JSON document. Works note by note, ' +
          'reporting progress, and can be cancelled.',
        inputSchema: z.object({
          format: z.enum(['markdown', 'json']).default('markdown').describe('markdown (default) or json'),
          tag: z.string().min(1).optional().describe('Only notes with this tag'),
        }),
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      ({ format, tag }, ctx) =>
        guarded(async () => {
          const { signal } = ctx.mcpReq;
          const progressToken = ctx.mcpReq._meta?.progressToken;
          const notes = (await store.all()).filter((note) => hasTag(note, tag));
          const total = notes.length;
          if (total === 0) {
            return {
              content: [
                { type: 'text', text: tag === undefined ? 'No notes to export.' : `No notes tagged "${tag}".` },
              ],
            };
          }
          const parts = [];
          for (const [index, note] of notes.entries()) {
            signal.throwIfAborted();
            if (exportDelayMs > 0) await sleep(exportDelayMs, undefined, { signal });
            parts.push(format === 'json' ? full(note) : toMarkdown(note));
            if (progressToken !== undefined) {
              await ctx.mcpReq.notify({
                method: 'notifications/progress',
                params: { progressToken, progress: index + 1, total, message: `Exported "${note.title}"` },
              });
            }
          }
          const document = format === 'json' ? JSON.stringify({ notes: parts }, null, 2) : parts.join('\n---\n\n');
          logger?.debug({ count: total, format }, 'notes exported');
          return { content: [{ type: 'text', text: document }] };
        }),
    );

    server.registerResource(
      'notes-index',
      'notes://index',
      {
        title: 'Notes index',
        description: 'Every note with its tags and note:// link, as Markdown.',
        mimeType: 'text/markdown',
      },
      async (uri) => {
        const notes = await store.all();
        const lines = ['# Notes', ''];
        if (notes.length === 0) lines.push('No notes yet.');
        for (const note of notes) {
          const tags = note.tags.length ? ` — ${note.tags.join(', ')}` : '';
          lines.push(`- [${note.title}](${noteUri(note.id)})${tags}`);
        }
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: lines.join('\n') + '\n' }] };
      },
    );

    server.registerResource(
      'note',
      new ResourceTemplate('note://{id}', {
        list: async () => ({
          resources: (await store.all()).map((note) => ({
            uri: noteUri(note.id),
            name: note.id,
            title: note.title,
            description: note.body.split('\n', 1)[0].slice(0, 120) || undefined,
            mimeType: 'text/markdown',
          })),
        }),
        complete: { id: completeIds },
      }),
      { title: 'Note', description: 'One note, as Markdown.', mimeType: 'text/markdown' },
      async (uri, variables) => {
        const raw = Array.isArray(variables.id) ? variables.id[0] : variables.id;
        let id = String(raw ?? '');
        try {
          id = decodeURIComponent(id);
        } catch {
          // keep it as written
        }
        const note = await store.find(id);
        if (!note) throw new ResourceNotFoundError(uri.href, `No note with id "${id}"`);
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: toMarkdown(note) }] };
      },
    );

    server.registerPrompt(
      'review_note',
      {
        title: 'Review a note',
        description: 'Ask the model to review one note: what is unclear or missing, its action items, a revision.',
        argsSchema: z.object({
          id: completable(z.string().describe('The id of the note to review'), completeIds),
          focus: completable(
            z.string().describe(`What to concentrate on, e.g. ${REVIEW_FOCUSES.join(', ')}`),
            (value) => REVIEW_FOCUSES.filter((focus) => focus.startsWith((value ?? '').toLowerCase())),
          ).optional(),
        }),
      },
      async ({ id, focus }) => {
        const note = await store.find(id);
        if (!note) {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `No note with id "${id}". Complete the id argument or call list_notes to see the ids.`,
          );
        }
        const ask =
          `Review the note "${note.title}" above${focus ? `, concentrating on ${focus}` : ''}. ` +
          'Say what is unclear, missing or out of date, list the action items it implies, ' +
          'and propose a revised version.';
        return {
          description: `Review of note "${note.title}"`,
          messages: [
            {
              role: 'user',
              content: {
                type: 'resource',
                resource: { uri: noteUri(note.id), mimeType: 'text/markdown', text: toMarkdown(note) },
              },
            },
            { role: 'user', content: { type: 'text', text: ask } },
          ],
        };
      },
    );

    return server;
  },
};

export default plugin;
