// Time-zone arithmetic with Intl only: no tz database of our own, no network.

/**
 * Older ICU data (Node 20's among them) names some zones by their pre-rename
 * CLDR ids. Show the current IANA name when the runtime accepts it, so that
 * `Asia/Kolkata` is listed, completed and returned rather than `Asia/Calcutta`.
 */
const RENAMED = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Coral_Harbour': 'America/Atikokan',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};

/** @param {string} zone */
function accepted(zone) {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** @param {string} zone the runtime's name → the current IANA name */
const modern = (zone) => {
  const renamed = /** @type {Record<string, string>} */ (RENAMED)[zone];
  return renamed && accepted(renamed) ? renamed : zone;
};

/** @type {string[] | undefined} */
let zoneList;
/** @type {Map<string, string> | undefined} */
let byLowerCase;

/** Every IANA zone this runtime knows, sorted, with `UTC` (which Intl does not list). */
export function allTimeZones() {
  if (!zoneList) {
    const zones = new Set(Intl.supportedValuesOf('timeZone').map(modern));
    zones.add('UTC');
    zoneList = [...zones].sort();
    byLowerCase = new Map(zoneList.map((zone) => [zone.toLowerCase(), zone]));
  }
  return [...zoneList];
}

/**
 * The name a time zone is shown by (`europe/paris` → `Europe/Paris`,
 * `Asia/Calcutta` → `Asia/Kolkata`, `US/Eastern` → `America/New_York`), or
 * undefined when the runtime does not know it.
 * @param {string} name
 */
export function canonicalZone(name) {
  if (typeof name !== 'string' || name.trim() === '') return undefined;
  allTimeZones();
  const listed = byLowerCase?.get(name.trim().toLowerCase());
  if (listed) return listed;
  const resolved = accepted(name.trim());
  return resolved === undefined ? undefined : modern(resolved);
}

/** Up to `limit` known zones that look like what was typed (`paris` → `Europe/Paris`). */
export function suggestZones(name, limit = 5) {
  const typed = String(name).trim().toLowerCase().replace(/\s+/g, '_');
  if (!typed) return [];
  const zones = allTimeZones();
  const last = zones.filter((zone) => (zone.split('/').pop() ?? '').toLowerCase().startsWith(typed));
  const anywhere = zones.filter((zone) => !last.includes(zone) && zone.toLowerCase().includes(typed));
  return [...last, ...anywhere].slice(0, limit);
}

/** Explains an unknown zone and what to use instead. */
export function unknownZoneMessage(name) {
  const suggestions = suggestZones(name);
  return (
    `Unknown time zone "${name}". Use an IANA name such as Europe/Paris or America/New_York` +
    (suggestions.length ? ` (did you mean ${suggestions.join(', ')}?)` : '') +
    '; list_time_zones lists them all.'
  );
}

const partFormatters = new Map();
/** @param {string} zone */
function partFormatter(zone) {
  let formatter = partFormatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'long',
    });
    partFormatters.set(zone, formatter);
  }
  return formatter;
}

/**
 * The wall-clock fields of an instant in a zone.
 * @param {string} zone
 * @param {Date} date
 */
export function wallClock(zone, date) {
  /** @type {Record<string, string>} */
  const parts = {};
  for (const { type, value } of partFormatter(zone).formatToParts(date)) parts[type] = value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: parts.weekday,
  };
}

/** Minutes east of UTC of a zone at an instant (Paris in summer: 120). */
export function offsetMinutes(zone, date) {
  const wall = wallClock(zone, date);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  const instant = Math.floor(date.getTime() / 1000) * 1000;
  return Math.round((asUtc - instant) / 60000);
}

/** 120 → `+02:00`, -330 → `-05:30`. */
export function formatOffset(minutes) {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

const pad = (n, width = 2) => String(n).padStart(width, '0');

/** `2025-06-01` for a wall clock. */
export const dateOf = (wall) => `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}`;
/** `14:30` for a wall clock. */
export const hhmm = (wall) => `${pad(wall.hour)}:${pad(wall.minute)}`;

/** An instant as local ISO 8601 with its offset in a zone: `2025-06-01T14:30:00+02:00`. */
export function localIso(zone, date) {
  const wall = wallClock(zone, date);
  return `${dateOf(wall)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}${formatOffset(offsetMinutes(zone, date))}`;
}

/** A human rendering of an instant in a zone, in a locale: `Sunday, June 1, 2025 at 2:30:00 PM GMT+2`. */
export function formatted(zone, date, locale) {
  return new Intl.DateTimeFormat(locale, { timeZone: zone, dateStyle: 'full', timeStyle: 'long' }).format(date);
}

/**
 * The instant at which a zone's clocks show a wall time, or undefined when
 * they never do (the hour skipped when daylight saving time starts). In the
 * repeated hour when it ends, the earlier instant is chosen.
 * @param {string} zone
 * @param {{ year: number, month: number, day: number, hour: number, minute: number, second?: number }} wall
 */
export function wallToInstant(zone, wall) {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second ?? 0);
  // The offset is what it was a day earlier or a day later; try both and keep the one that round-trips.
  const candidates = new Set();
  for (const probe of [asUtc - 86_400_000, asUtc, asUtc + 86_400_000]) {
    candidates.add(asUtc - offsetMinutes(zone, new Date(probe)) * 60000);
  }
  const matches = [...candidates]
    .sort((a, b) => a - b)
    .filter((t) => {
      const back = wallClock(zone, new Date(t));
      return (
        back.year === wall.year &&
        back.month === wall.month &&
        back.day === wall.day &&
        back.hour === wall.hour &&
        back.minute === wall.minute &&
        back.second === (wall.second ?? 0)
      );
    });
  return matches.length ? new Date(matches[0]) : undefined;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;
const LOCAL_TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;

export const TIME_FORMATS =
  '"14:30" (today in the source zone), "2025-06-01T14:30" (a wall time in the source zone) ' +
  'or "2025-06-01T12:30:00Z" / "2025-06-01T14:30:00+02:00" (an exact instant)';

/**
 * Reads a time as convert_time accepts it.
 * @param {string} text
 * @param {string} zone   the zone a wall time is read in
 * @param {Date} now      for "today"
 * @returns {{ date: Date } | { error: string }}
 */
export function parseTime(text, zone, now) {
  const input = text.trim();
  if (INSTANT.test(input)) {
    const date = new Date(input.replace(' ', 'T'));
    return Number.isNaN(date.getTime()) ? { error: `"${text}" is not a valid date-time.` } : { date };
  }
  let wall;
  let match = LOCAL_DATE_TIME.exec(input);
  if (match) {
    const [, year, month, day, hour, minute, second] = match.map(Number);
    wall = { year, month, day, hour, minute, second: second || 0 };
  } else if ((match = LOCAL_TIME.exec(input))) {
    const today = wallClock(zone, now);
    wall = {
      year: today.year,
      month: today.month,
      day: today.day,
      hour: +match[1],
      minute: +match[2],
      second: +(match[3] ?? 0),
    };
  } else {
    return { error: `Cannot read the time "${text}". Use ${TIME_FORMATS}.` };
  }
  const check = new Date(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second));
  if (
    wall.hour > 23 ||
    wall.minute > 59 ||
    wall.second > 59 ||
    check.getUTCMonth() !== wall.month - 1 ||
    check.getUTCDate() !== wall.day
  ) {
    return { error: `"${text}" is not a valid date or time.` };
  }
  const date = wallToInstant(zone, wall);
  if (!date) {
    return {
      error: `${dateOf(wall)} ${hhmm(wall)} does not exist in ${zone}: the clocks skip it when daylight saving time starts.`,
    };
  }
  return { date };
}
