import { AppError, type FieldProblem } from '../domain/errors.js';

/** An Ajv error as fastify hands it over (`verbose` adds the schema holding the failed keyword). */
export interface AjvError {
  instancePath: string;
  schemaPath?: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  parentSchema?: unknown;
}

/** The schema errors of one part of a request: `body`, `querystring`, `params` or `headers`. */
export interface PartErrors {
  context: string | undefined;
  errors: readonly AjvError[];
}

/**
 * VALIDATION_FAILED naming every bad field once, in words: Ajv reports a field several times (each branch of a
 * nullable `anyOf` fails, then the `anyOf` itself), so its errors are collapsed per field into the one that says
 * what is wrong. A value of the wrong type for a nullable field is `must be a string or null`; a string that is too
 * long is `must be at most 1024 characters`, never `must be null`.
 */
export function validationFailedOf(parts: readonly PartErrors[]): AppError {
  const byField = new Map<string, AjvError[]>();
  for (const { context, errors } of parts) {
    for (const error of errors) {
      const field = fieldOf(error, context);
      const list = byField.get(field);
      if (list) list.push(error);
      else byField.set(field, [error]);
    }
  }
  const fields = [...byField.keys()];
  const problems: FieldProblem[] = [];
  for (const [field, errors] of byField) {
    const onlyUnion = errors.every((e) => isUnion(e) || isBranchType(e));
    // A nullable object whose own field is bad: the deeper field is named; the union around it adds nothing.
    if (onlyUnion && fields.some((other) => other.startsWith(`${field}.`) || other.startsWith(`${field}[`))) continue;
    problems.push({ field, message: `${field} ${describe(errors)}` });
  }
  const names = problems.map((p) => p.field);
  return new AppError(
    'VALIDATION_FAILED',
    names.length === 1 ? `Invalid field: ${names[0]}.` : `Invalid fields: ${names.join(', ')}.`,
    problems,
  );
}

/** The field an error is about, written `a.b[2].c`; a missing or unknown property names itself. */
function fieldOf(error: AjvError, context: string | undefined): string {
  const path = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`))
    .join('')
    .replace(/^\./, '');
  const named = stringParam(error, 'missingProperty') ?? stringParam(error, 'additionalProperty');
  if (named) return path ? `${path}.${named}` : named;
  return path || context || 'body';
}

/** One phrase for a field's errors: a real constraint first; else the types its union branches wanted. */
function describe(errors: readonly AjvError[]): string {
  const constraint = errors.find((e) => !isUnion(e) && !isBranchType(e));
  if (constraint) return phrase(constraint);
  const types = errors.filter(isBranchType).flatMap((e) => String(e.params.type).split(','));
  if (types.length > 0) return `must be ${[...new Set(types)].map(typeWord).join(' or ')}`;
  return 'is not valid';
}

function isUnion(error: AjvError): boolean {
  return error.keyword === 'anyOf' || error.keyword === 'oneOf';
}

function isBranchType(error: AjvError): boolean {
  return error.keyword === 'type' && /\/(anyOf|oneOf)\/\d+\/type$/.test(error.schemaPath ?? '');
}

/** What a failed keyword means, as the end of a sentence that starts with the field's name. */
function phrase(error: AjvError): string {
  const limit = error.params.limit;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'type':
      return `must be ${String(error.params.type).split(',').map(typeWord).join(' or ')}`;
    case 'maxLength':
      return `must be at most ${String(limit)} characters`;
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${String(limit)} characters`;
    case 'minimum':
      return `must be at least ${String(limit)}`;
    case 'maximum':
      return `must be at most ${String(limit)}`;
    case 'exclusiveMinimum':
      return `must be greater than ${String(limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(limit)}`;
    case 'minItems':
      return `must have at least ${String(limit)} ${limit === 1 ? 'element' : 'elements'}`;
    case 'maxItems':
      return `must have at most ${String(limit)} elements`;
    case 'enum':
      return `must be one of ${(error.params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(error.params.allowedValue)}`;
    case 'format':
      return `must be a valid ${String(error.params.format)}`;
    case 'pattern': {
      const expected = (error.parentSchema as { 'x-expected'?: unknown } | undefined)?.['x-expected'];
      return typeof expected === 'string' ? `must be ${expected}` : 'is not in the expected format';
    }
    default:
      // Our own keywords (x-group-id, the plain-text checks) word their messages for people already.
      return error.message ?? 'is not valid';
  }
}

function typeWord(type: string): string {
  const words: Record<string, string> = {
    string: 'a string',
    integer: 'an integer',
    number: 'a number',
    boolean: 'true or false',
    object: 'an object',
    array: 'an array',
    null: 'null',
  };
  return words[type] ?? type;
}

function stringParam(error: AjvError, name: string): string | undefined {
  const value = error.params[name];
  return typeof value === 'string' ? value : undefined;
}
