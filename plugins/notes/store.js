// The notes file: one JSON document, read fresh for every operation (so two
// instances of the plugin, or a hand edit, never see stale data) and replaced
// atomically (write a temporary file beside it, then rename over it).
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * @typedef {object} Note
 * @property {string} id         stable, URI-safe: a slug of the title (`shopping-list`, `shopping-list-2`)
 * @property {string} title
 * @property {string} body
 * @property {string[]} tags
 * @property {string} createdAt  ISO 8601
 * @property {string} updatedAt  ISO 8601
 */

const FORMAT_VERSION = 1;
const MAX_ID_LENGTH = 48;

/** An error whose message is meant for the caller as is (a missing note, a damaged file). */
export class NotesError extends Error {
  /** @param {string} message @param {'not_found' | 'bad_file'} code */
  constructor(message, code) {
    super(message);
    this.name = 'NotesError';
    this.code = code;
  }
}

/** `Shopping list (June)` → `shopping-list-june`; titles with nothing usable give `note`. */
export function slugify(title) {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_ID_LENGTH)
    .replace(/-+$/g, '');
  return slug || 'note';
}

export class NoteStore {
  /**
   * @param {string} file   absolute path of the JSON file (created on first write)
   * @param {() => Date} now
   */
  constructor(file, now) {
    this.file = file;
    this.now = now;
    /** Writes in this process run one at a time, so two concurrent adds cannot lose one another. */
    this.queue = Promise.resolve();
  }

  /** @returns {Promise<Note[]>} every note, oldest first */
  async all() {
    let text;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return [];
      throw error;
    }
    let data;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new NotesError(
        `The notes file ${this.file} is not valid JSON (${/** @type {Error} */ (error).message}); fix or remove it.`,
        'bad_file',
      );
    }
    if (!data || typeof data !== 'object' || !Array.isArray(data.notes)) {
      throw new NotesError(
        `The notes file ${this.file} is not a notes file: expected {"version": ${FORMAT_VERSION}, "notes": [...]}; fix or remove it.`,
        'bad_file',
      );
    }
    return data.notes;
  }

  /** @param {string} id @returns {Promise<Note | undefined>} */
  async find(id) {
    return (await this.all()).find((note) => note.id === id);
  }

  /** @param {string} id @returns {Promise<Note>} */
  async get(id) {
    const note = await this.find(id);
    if (!note) throw new NotesError(`No note with id "${id}". Call list_notes to see the ids.`, 'not_found');
    return note;
  }

  /**
   * @param {{ title: string, body: string, tags: string[] }} fields
   * @returns {Promise<Note>}
   */
  add({ title, body, tags }) {
    return this.update((notes) => {
      const taken = new Set(notes.map((note) => note.id));
      const base = slugify(title);
      let id = base;
      for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
      const at = this.now().toISOString();
      const note = { id, title, body, tags: [...new Set(tags)], createdAt: at, updatedAt: at };
      notes.push(note);
      return note;
    });
  }

  /** @param {string} id @returns {Promise<Note>} the note removed */
  remove(id) {
    return this.update((notes) => {
      const index = notes.findIndex((note) => note.id === id);
      if (index < 0) throw new NotesError(`No note with id "${id}". Call list_notes to see the ids.`, 'not_found');
      return notes.splice(index, 1)[0];
    });
  }

  /**
   * Read, change, write back atomically; serialized within this process.
   * @template T
   * @param {(notes: Note[]) => T} change  mutates the array it is given
   * @returns {Promise<T>}
   */
  update(change) {
    const run = async () => {
      const notes = await this.all();
      const result = change(notes);
      await this.write(notes);
      return result;
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => {});
    return next;
  }

  /** @param {Note[]} notes */
  async write(notes) {
    await mkdir(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, JSON.stringify({ version: FORMAT_VERSION, notes }, null, 2) + '\n', {
        encoding: 'utf8',
        mode: 0o600,
      });
      await rename(temporary, this.file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
}
