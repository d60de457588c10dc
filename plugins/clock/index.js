// @mcp-host/clock: the current time, time-zone conversion and meeting
// planning across zones, with Intl only; written with the v1 MCP SDK.
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  allTimeZones,
  canonicalZone,
  dateOf,
  formatOffset,
  formatted,
  hhmm,
  localIso,
  offsetMinutes,
  parseTime,
  TIME_FORMATS,
  unknownZoneMessage,
  wallClock,
  wallToInstant,
} from './time.js';

const { name: PACKAGE_NAME, version: VERSION } = createRequire(import.meta.url)('./package.json');

const optionsSchema = z
  .object({
    now: z.iso.datetime({ offset: true }).optional(),
    timeZone: z.string().min(1).optional(),
    locale: z.string().min(1).optional(),
    tickMs: z.number().int().min(0).max(60_000).optional(),
  })
  .strict();

/** @typedef {z.infer<typeof optionsSchema>} ClockOptions */

/** @param {unknown} options */
function parseOptions(options) {
  const fail = (/** @type {string} */ problem) => {
    throw new Error(
      `${PACKAGE_NAME}: invalid options: ${problem}. ` +
        'Expected { now?: ISO date-time, timeZone?: IANA zone, locale?: BCP 47 tag, tickMs?: integer 0-60000 }.',
    );
  };
  const parsed = optionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    fail(parsed.error.issues.map((issue) => `${['options', ...issue.path].join('.')}: ${issue.message}`).join('; '));
  }
  const { now, timeZone = 'UTC', locale = 'en-US', tickMs = 1000 } = parsed.data;
  const zone = canonicalZone(timeZone);
  if (!zone) fail(`options.timeZone: ${unknownZoneMessage(timeZone)}`);
  try {
    Intl.DateTimeFormat.supportedLocalesOf(locale);
  } catch {
    fail(`options.locale: "${locale}" is not a BCP 47 language tag (e.g. en-US, fr-FR)`);
  }
  return { frozen: now === undefined ? undefined : new Date(now), zone: /** @type {string} */ (zone), locale, tickMs };
}

/**
 * A JSON-RPC "invalid params" error. (v1's McpError would prefix its message
 * with "MCP error -32602:", which the client then prefixes again.)
 * @param {string} message @param {Record<string, unknown>} [data]
 */
const invalidParams = (message, data) => Object.assign(new Error(message), { code: ErrorCode.InvalidParams, data });

/** @param {string} text */
const text = (text) => ({ type: /** @type {const} */ ('text'), text });
/** @param {string} message */
const toolError = (message) => ({ content: [text(message)], isError: true });

/** 330 → `5 h 30 min`. */
function duration(minutes) {
  const h = Math.floor(Math.abs(minutes) / 60);
  const m = Math.abs(minutes) % 60;
  return [h ? `${h} h` : '', m ? `${m} min` : ''].filter(Boolean).join(' ') || '0 min';
}

const WORKDAYS = new Set(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday']);
const SLOT_MS = 15 * 60_000;

/** `9-17`, `09:00-17:30`, `9:00–17:00` → minutes of the day, or undefined. */
function parseHours(hours) {
  const match = /^(\d{1,2})(?::(\d{2}))?\s*[-–]\s*(\d{1,2})(?::(\d{2}))?$/.exec(hours.trim());
  if (!match) return undefined;
  const start = Number(match[1]) * 60 + Number(match[2] ?? 0);
  const end = Number(match[3]) * 60 + Number(match[4] ?? 0);
  if (start >= end || end > 24 * 60 || Number(match[2] ?? 0) > 59 || Number(match[4] ?? 0) > 59) return undefined;
  return { start, end };
}

/**
 * Windows (in 15-minute steps over one day of the first zone) in which every
 * zone given is inside its working hours on a working day.
 * @param {string[]} zones
 * @param {Date[]} slots
 * @param {{ start: number, end: number }} hours
 */
function windows(zones, slots, hours) {
  const working = (/** @type {Date} */ t) =>
    zones.every((zone) => {
      const wall = wallClock(zone, t);
      const minute = wall.hour * 60 + wall.minute;
      return WORKDAYS.has(wall.weekday) && minute >= hours.start && minute < hours.end;
    });
  /** @type {{ from: Date, to: Date }[]} */
  const found = [];
  for (const slot of slots) {
    if (!working(slot)) continue;
    const last = found.at(-1);
    const to = new Date(slot.getTime() + SLOT_MS);
    if (last && last.to.getTime() === slot.getTime()) last.to = to;
    else found.push({ from: slot, to });
  }
  return found;
}

/**
 * A window as a zone's clocks show it: `15:00–17:00`, with the weekday the
 * window starts on when asked (`09:00–11:00 Monday`).
 * @param {string} zone @param {{ from: Date, to: Date }} window @param {boolean} withDay
 */
function span(zone, { from, to }, withDay) {
  const start = wallClock(zone, from);
  return `${hhmm(start)}–${hhmm(wallClock(zone, to))}${withDay ? ` ${start.weekday}` : ''}`;
}

/** @type {import('./index.d.ts').ClockPlugin} */
const plugin = {
  create({ options, logger }) {
    const { frozen, zone: defaultZone, locale: defaultLocale, tickMs } = parseOptions(options);
    const now = () => (frozen ? new Date(frozen) : new Date());
    logger?.debug({ timeZone: defaultZone, frozen: frozen?.toISOString() }, 'clock');

    const server = new McpServer({ name: 'clock', version: VERSION });

    /** @param {string} zone @param {Date} date @param {string} locale */
    const describe = (zone, date, locale) => ({
      timeZone: zone,
      iso: localIso(zone, date),
      formatted: formatted(zone, date, locale),
      utcOffset: formatOffset(offsetMinutes(zone, date)),
      weekday: wallClock(zone, date).weekday,
    });
    const placeShape = {
      timeZone: z.string(),
      iso: z.string(),
      formatted: z.string(),
      utcOffset: z.string(),
      weekday: z.string(),
    };

    /** Zones for completion: last segment first (`par` → Europe/Paris), then any zone containing the text. */
    const completeZone = (/** @type {string} */ value) => {
      const typed = (value ?? '').trim().toLowerCase();
      const zones = allTimeZones();
      if (!typed) return zones;
      const starts = zones.filter(
        (zone) => zone.toLowerCase().startsWith(typed) || (zone.split('/').pop() ?? '').toLowerCase().startsWith(typed),
      );
      const contains = zones.filter((zone) => !starts.includes(zone) && zone.toLowerCase().includes(typed));
      return [...starts, ...contains];
    };

    /** @param {string | undefined} locale */
    const checkLocale = (locale) => {
      if (locale === undefined) return defaultLocale;
      try {
        Intl.DateTimeFormat.supportedLocalesOf(locale);
        return locale;
      } catch {
        return undefined;
      }
    };

    server.registerTool(
      'now',
      {
        title: 'Current time',
        description: `The current date and time in a time zone (default ${defaultZone}): ISO 8601 with offset and a readable form.`,
        inputSchema: {
          timeZone: z.string().optional().describe(`IANA time zone, e.g. Europe/Paris (default ${defaultZone})`),
          locale: z.string().optional().describe(`BCP 47 locale for the readable form (default ${defaultLocale})`),
        },
        outputSchema: { ...placeShape, utc: z.string(), epochMs: z.number() },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async ({ timeZone, locale }) => {
        const zone = canonicalZone(timeZone ?? defaultZone);
        if (!zone) return toolError(unknownZoneMessage(timeZone ?? ''));
        const lang = checkLocale(locale);
        if (!lang) return toolError(`"${locale}" is not a BCP 47 language tag (e.g. en-US, fr-FR).`);
        const date = now();
        const place = describe(zone, date, lang);
        return {
          content: [text(`${place.iso} in ${zone} (${place.formatted}).`)],
          structuredContent: { ...place, utc: date.toISOString(), epochMs: date.getTime() },
        };
      },
    );

    server.registerTool(
      'convert_time',
      {
        title: 'Convert a time between zones',
        description:
          'Convert a time from one time zone to another. ' +
          `The time may be ${TIME_FORMATS}. Times that a daylight-saving change skips are refused.`,
        inputSchema: {
          time: z.string().min(1).describe('The time to convert, e.g. "14:30" or "2025-06-01T14:30"'),
          from: z.string().optional().describe(`IANA zone the time is in (default ${defaultZone})`),
          to: z.string().min(1).describe('IANA zone to convert to, e.g. Asia/Tokyo'),
          locale: z.string().optional().describe(`BCP 47 locale for the readable forms (default ${defaultLocale})`),
        },
        outputSchema: {
          utc: z.string(),
          from: z.object(placeShape),
          to: z.object(placeShape),
          differenceMinutes: z.number().int().describe('How far the target zone is ahead of the source zone'),
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async ({ time, from, to, locale }) => {
        const fromZone = canonicalZone(from ?? defaultZone);
        if (!fromZone) return toolError(`from: ${unknownZoneMessage(from ?? '')}`);
        const toZone = canonicalZone(to);
        if (!toZone) return toolError(`to: ${unknownZoneMessage(to)}`);
        const lang = checkLocale(locale);
        if (!lang) return toolError(`"${locale}" is not a BCP 47 language tag (e.g. en-US, fr-FR).`);
        const parsed = parseTime(time, fromZone, now());
        if ('error' in parsed) return toolError(parsed.error);
        const { date } = parsed;
        const source = describe(fromZone, date, lang);
        const target = describe(toZone, date, lang);
        const difference = offsetMinutes(toZone, date) - offsetMinutes(fromZone, date);
        const wall = (/** @type {string} */ zone) => {
          const w = wallClock(zone, date);
          return `${dateOf(w)} ${hhmm(w)} (${w.weekday})`;
        };
        const relation =
          difference === 0
            ? `both are at UTC${source.utcOffset}`
            : `${toZone} is ${duration(difference)} ${difference > 0 ? 'ahead of' : 'behind'} ${fromZone}`;
        return {
          content: [text(`${wall(fromZone)} in ${fromZone} is ${wall(toZone)} in ${toZone}; ${relation}.`)],
          structuredContent: { utc: date.toISOString(), from: source, to: target, differenceMinutes: difference },
        };
      },
    );

    server.registerTool(
      'list_time_zones',
      {
        title: 'List time zones',
        description: 'The IANA time zones this host knows, with their current UTC offsets; optionally filtered.',
        inputSchema: {
          filter: z.string().optional().describe('Only zones whose name contains this text, e.g. "america" or "paris"'),
        },
        outputSchema: {
          count: z.number().int(),
          timeZones: z.array(z.object({ timeZone: z.string(), utcOffset: z.string() })),
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async ({ filter }) => {
        const date = now();
        const needle = (filter ?? '').trim().toLowerCase().replace(/\s+/g, '_');
        const timeZones = allTimeZones()
          .filter((zone) => zone.toLowerCase().includes(needle))
          .map((zone) => ({ timeZone: zone, utcOffset: formatOffset(offsetMinutes(zone, date)) }));
        const lines = timeZones.map((z) => `${z.timeZone} (UTC${z.utcOffset})`);
        return {
          content: [text(lines.length ? lines.join('\n') : `No time zone name contains "${filter}".`)],
          structuredContent: { count: timeZones.length, timeZones },
        };
      },
    );

    server.registerTool(
      'countdown',
      {
        title: 'Countdown',
        description:
          'Wait for a number of seconds, reporting progress every second, then finish. ' +
          'A timer for pacing work; it can be cancelled.',
        inputSchema: {
          seconds: z.number().int().min(1).max(3600).describe('How long to count down, 1 to 3600 seconds'),
          label: z.string().max(100).optional().describe('What the countdown is for'),
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async ({ seconds, label }, extra) => {
        const progressToken = extra._meta?.progressToken;
        const name = label ? `"${label}"` : `of ${seconds} s`;
        for (let elapsed = 1; elapsed <= seconds; elapsed++) {
          extra.signal.throwIfAborted();
          if (tickMs > 0) await sleep(tickMs, undefined, { signal: extra.signal });
          if (progressToken !== undefined) {
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress: elapsed, total: seconds, message: `${seconds - elapsed} s left` },
            });
          }
        }
        return { content: [text(`Countdown ${name} finished after ${seconds} s.`)] };
      },
    );

    server.registerPrompt(
      'plan_meeting',
      {
        title: 'Plan a meeting across time zones',
        description:
          'Find the hours on one day that fall within everyone’s working hours, and ask for meeting times ' +
          'given in each participant’s local time.',
        argsSchema: {
          zones: completable(
            z.string().describe('Comma-separated IANA zones, organizer first, e.g. "Europe/Paris, America/New_York"'),
            (value) => {
              const entries = (value ?? '').split(',');
              const last = entries.pop() ?? '';
              const done = entries.map((entry) => entry.trim()).filter(Boolean);
              return completeZone(last)
                .filter((zone) => !done.includes(zone))
                .map((zone) => [...done, zone].join(', '));
            },
          ),
          // v1 looks for the completer on the field itself, so `.optional()` goes inside completable().
          date: completable(
            z.string().optional().describe('The day, YYYY-MM-DD, in the first zone (default today there)'),
            (value, context) => {
              const first = canonicalZone((context?.arguments?.zones ?? '').split(',')[0] ?? '') ?? defaultZone;
              const today = wallClock(first, now());
              const days = [];
              for (let i = 0; i < 14; i++) {
                days.push(dateOf(wallClock('UTC', new Date(Date.UTC(today.year, today.month - 1, today.day + i)))));
              }
              return days.filter((day) => day.startsWith(value ?? ''));
            },
          ),
          hours: z.string().optional().describe('Working hours, local everywhere, e.g. "09:00-17:00" (the default)'),
        },
      },
      async ({ zones, date, hours }) => {
        const invalid = (/** @type {string} */ message) => invalidParams(message);
        const names = zones
          .split(',')
          .map((zone) => zone.trim())
          .filter(Boolean);
        if (names.length === 0)
          throw invalid('zones: give at least one IANA time zone, e.g. "Europe/Paris, Asia/Tokyo".');
        /** @type {string[]} */
        const list = [];
        for (const name of names) {
          const zone = canonicalZone(name);
          if (!zone) throw invalid(`zones: ${unknownZoneMessage(name)}`);
          if (!list.includes(zone)) list.push(zone);
        }
        const first = list[0];
        const working = parseHours(hours ?? '09:00-17:00');
        if (!working) throw invalid(`hours: cannot read "${hours}"; write it like "09:00-17:00".`);
        const today = wallClock(first, now());
        const day = date?.trim() || dateOf(today);
        const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
        const check = match && new Date(Date.UTC(+match[1], +match[2] - 1, +match[3]));
        if (!match || !check || dateOf(wallClock('UTC', check)) !== day) {
          throw invalid(`date: "${date}" is not a date; write it as YYYY-MM-DD.`);
        }
        const [year, month, dayOfMonth] = [+match[1], +match[2], +match[3]];

        // Every quarter hour of that day in the first zone.
        const start =
          wallToInstant(first, { year, month, day: dayOfMonth, hour: 0, minute: 0 }) ??
          wallToInstant(first, { year, month, day: dayOfMonth, hour: 1, minute: 0 });
        /** @type {Date[]} */
        const slots = [];
        for (let t = start?.getTime() ?? 0; start; t += SLOT_MS) {
          const slot = new Date(t);
          if (dateOf(wallClock(first, slot)) !== day) break;
          slots.push(slot);
        }
        const range = `${hhmm({ hour: Math.floor(working.start / 60), minute: working.start % 60 })}–${hhmm({ hour: Math.floor(working.end / 60), minute: working.end % 60 })}`;
        const weekday = wallClock(first, slots[0]).weekday;

        const perZone = list.map((zone) => {
          const own = windows([zone], slots, working);
          const where = own.length ? own.map((w) => span(first, w, false)).join(', ') : 'not at all that day';
          return `- ${zone} (UTC${formatOffset(offsetMinutes(zone, slots[0]))}): ${where}`;
        });
        const shared = windows(list, slots, working);
        const common = shared.length
          ? `Times that suit everyone (within working hours in every zone):\n${shared
              .map((w) => `- ${list.map((zone) => `${span(zone, w, true)} ${zone}`).join(' = ')}`)
              .join('\n')}`
          : 'No time that day is within working hours in every zone.';
        const body = [
          `Help me schedule a meeting on ${weekday} ${day} (the date in ${first}) for participants in ${list.join(', ')}.`,
          '',
          `Working hours are ${range} local time, Monday to Friday. When each participant is working, in ${first} time:`,
          ...perZone,
          '',
          common,
          '',
          'Propose two or three meeting times. Give each in every participant’s local time, and if no time suits ' +
            'everyone, say who would meet outside their working hours and by how much.',
        ].join('\n');
        return {
          description: `Meeting on ${day} across ${list.length} time zone${list.length === 1 ? '' : 's'}`,
          messages: [{ role: 'user', content: text(body) }],
        };
      },
    );

    server.registerResource(
      'time-zones',
      'clock://zones',
      {
        title: 'Time zones',
        description: 'Every IANA time zone this host knows, one per line, with its current UTC offset.',
        mimeType: 'text/plain',
      },
      async (uri) => {
        const date = now();
        const lines = allTimeZones().map((zone) => `${zone}\tUTC${formatOffset(offsetMinutes(zone, date))}`);
        return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: lines.join('\n') + '\n' }] };
      },
    );

    server.registerResource(
      'time-in-zone',
      new ResourceTemplate('clock://time/{+zone}', { list: undefined, complete: { zone: completeZone } }),
      {
        title: 'Time in a zone',
        description: 'The current time in one IANA zone as JSON, e.g. clock://time/Europe/Paris.',
        mimeType: 'application/json',
      },
      async (uri, variables) => {
        const raw = String(Array.isArray(variables.zone) ? variables.zone[0] : variables.zone);
        let name = raw;
        try {
          name = decodeURIComponent(raw);
        } catch {
          // keep it as written
        }
        const zone = canonicalZone(name);
        if (!zone) {
          throw invalidParams(`Resource ${uri.href} not found: ${unknownZoneMessage(name)}`, { uri: uri.href });
        }
        const date = now();
        const body = { ...describe(zone, date, defaultLocale), utc: date.toISOString(), epochMs: date.getTime() };
        return {
          contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(body, null, 2) + '\n' }],
        };
      },
    );

    return server;
  },
};

export default plugin;
