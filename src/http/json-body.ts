import type { FastifyInstance } from 'fastify';
import { AppError, validationFailed, type FieldProblem } from '../domain/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What a route calls its body when the body is an array (`commands`), for the field paths of body errors. */
    bodyName?: string;
  }
}

/** At most this many problems of one kind are named; a body with more is refused all the same. */
const maxProblemsNamed = 20;

/**
 * The one JSON body parser, stricter than fastify's: the body must be UTF-8 (the charset parameter, when sent, says
 * utf-8; the bytes decode without error, never into U+FFFD), parse as JSON (fastify's parser, which also refuses
 * `__proto__` and `constructor.prototype` keys), repeat no key within an object (JSON.parse would keep the last
 * one silently, so `{"status":"installed","status":"retired"}` would mean what the last one says), and hold no
 * number beyond ±(2^53 - 1): past that a double cannot hold every integer, so the value stored would not be the
 * value sent (99999999999999999999 would become 100000000000000000000).
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(
        new AppError(
          'UNSUPPORTED_MEDIA_TYPE',
          `The request body must be JSON in UTF-8 (Content-Type: application/json; charset=utf-8), not charset=${charset}.`,
        ),
      );
      return;
    }
    let text: string;
    try {
      text = utf8.decode(raw as Buffer);
    } catch {
      done(new AppError('MALFORMED_JSON', 'The request body is not valid UTF-8.'));
      return;
    }
    let parsed: unknown;
    let parseError: Error | undefined;
    parseJson(request, text, (error, value) => {
      parseError = error ?? undefined;
      parsed = value;
    });
    if (parseError) {
      done(parseError);
      return;
    }
    const problem = checkJsonText(text, request.routeOptions.config?.bodyName);
    done(problem ?? null, problem ? undefined : parsed);
  });
}

/** The charset parameter of a Content-Type header, lower case and unquoted, or undefined when there is none. */
export function charsetOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  for (const parameter of contentType.split(';').slice(1)) {
    const separator = parameter.indexOf('=');
    if (separator < 0) continue;
    if (parameter.slice(0, separator).trim().toLowerCase() !== 'charset') continue;
    return parameter
      .slice(separator + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return undefined;
}

interface Frame {
  object: boolean;
  /** The first key of an object, and from the second key on the set of all (most objects are small). */
  firstKey: string | undefined;
  keys: Set<string> | undefined;
  /** The current key of an object, or the current index of an array. */
  at: string | number;
  /** In an object: the next string is a key. */
  expectKey: boolean;
}

/**
 * Checks a text JSON.parse accepted for repeated keys (MALFORMED_JSON) and numbers beyond ±(2^53 - 1)
 * (VALIDATION_FAILED), naming each by its path (`commands[0].transactionId`). One pass, linear in the text: each
 * character is looked at a bounded number of times, every object keeps the set of its own keys only. Returns
 * undefined when the text is fine.
 */
export function checkJsonText(text: string, bodyName = ''): AppError | undefined {
  const stack: Frame[] = [];
  const repeated: FieldProblem[] = [];
  const unsafe: FieldProblem[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = endOfString(text, i);
      const top = stack[stack.length - 1];
      if (top?.object && top.expectKey) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        top.at = key;
        top.expectKey = false;
        if (top.firstKey === undefined) top.firstKey = key;
        else {
          top.keys ??= new Set([top.firstKey]);
          if (!top.keys.has(key)) top.keys.add(key);
          else if (repeated.length < maxProblemsNamed) {
            const field = pathOf(stack, bodyName);
            repeated.push({ field, message: `${field} appears more than once in the same object` });
          }
        }
      }
      i = end + 1;
    } else if (c === 0x7b /* { */) {
      stack.push({ object: true, firstKey: undefined, keys: undefined, at: '', expectKey: true });
      i += 1;
    } else if (c === 0x5b /* [ */) {
      stack.push({ object: false, firstKey: undefined, keys: undefined, at: 0, expectKey: false });
      i += 1;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      i += 1;
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1]!;
      if (top.object) top.expectKey = true;
      else top.at = (top.at as number) + 1;
      i += 1;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      let exponent = false;
      for (; end < n; end += 1) {
        const d = text.charCodeAt(end);
        if (d === 0x65 || d === 0x45) exponent = true;
        else if (!((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x2d || d === 0x2b)) break;
      }
      // Fewer than 16 characters without an exponent cannot reach 2^53 (9007199254740992, 16 digits).
      if (
        (exponent || end - i >= 16) &&
        !(Math.abs(Number(text.slice(i, end))) <= Number.MAX_SAFE_INTEGER) &&
        unsafe.length < maxProblemsNamed
      ) {
        const field = pathOf(stack, bodyName);
        unsafe.push({
          field,
          message: `${field} must be a number from -9007199254740991 to 9007199254740991 (larger ones cannot be stored exactly)`,
        });
      }
      i = end;
    } else i += 1; // whitespace, colons and the letters of true, false and null
  }
  if (repeated.length > 0) {
    const fields = repeated.map((p) => p.field).join(', ');
    return new AppError('MALFORMED_JSON', `The request body repeats a key within one object: ${fields}.`, repeated);
  }
  if (unsafe.length > 0) return validationFailed(unsafe);
  return undefined;
}

/** The index of the quote closing the string that opens at `start` (the text is valid JSON). */
function endOfString(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/** The path of the current value, written as the other field errors write it: `commands[0].x`, `a.b`. */
function pathOf(stack: readonly Frame[], bodyName: string): string {
  let path = bodyName || (stack[0]?.object === false ? 'body' : '');
  for (const frame of stack) {
    // An empty key is written "" so that it is still seen.
    const key = frame.at === '' ? '""' : frame.at;
    path += typeof key === 'number' ? `[${key}]` : path === '' ? key : `.${key}`;
  }
  return path === '' ? 'body' : path;
}
