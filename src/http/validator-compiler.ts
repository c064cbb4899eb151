import { Ajv, type ErrorObject, type KeywordDefinition, type ValidateFunction } from 'ajv';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { AppError } from '../domain/errors.js';
import { brokenGroupIdRule } from '../domain/groups/group-id-rules.js';
import { unassignedGroupId } from '../domain/groups/unassigned-group.js';
import { validationFailedOf, type PartErrors } from './validation-problems.js';

/**
 * Schema keyword for group ids, so the domain's rule (group-id-rules.ts, the one statement of it) is checked with
 * the other fields of a request and named in the same answer. `'x-group-id': 'id'` is a real group's id;
 * `'ref'` also admits `unassigned` (the things in no group).
 */
const groupIdKeyword: KeywordDefinition = {
  keyword: 'x-group-id',
  schemaType: 'string',
  errors: true,
  validate: function checkGroupId(kind: string, data: unknown): boolean {
    if (kind === 'ref' && data === unassignedGroupId) return true;
    const broken = brokenGroupIdRule(data);
    (checkGroupId as { errors?: Partial<ErrorObject>[] }).errors =
      broken === undefined ? [] : [{ keyword: 'x-group-id', message: broken, params: {} }];
    return broken === undefined;
  },
};

/**
 * Request validation with two Ajv instances. Bodies are JSON, so their types are taken as sent: a string where
 * an integer belongs is an error (integers stay integers), and unknown fields are errors where a schema closes
 * its object (no mass assignment). Query strings and path parameters are text by nature, so those are coerced
 * (`limit=5` becomes 5), but only from plain text: an integer is written in decimal digits (not `0x10`, ` 1`,
 * `1e1` or `+1`, which Ajv would coerce) and within ±(2^53 - 1), and no value holds a control character (`q=%00`).
 * Both report every problem, not only the first, so the error names every bad field. `verbose` gives each error
 * its schema, for messages in words (validation-problems.ts).
 */
const options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false, verbose: true } as const;
const bodyAjv = new Ajv({ ...options, coerceTypes: false, keywords: [groupIdKeyword] });
const textAjv = new Ajv({ ...options, coerceTypes: true, keywords: [groupIdKeyword] });

type HttpPart = 'body' | 'querystring' | 'params' | 'headers';
// Route schemas are shared objects (the same TUID params on many routes): compile each once per part.
const compiled: Record<HttpPart, WeakMap<object, ValidateFunction>> = {
  body: new WeakMap(),
  querystring: new WeakMap(),
  params: new WeakMap(),
  headers: new WeakMap(),
};

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const part = (httpPart ?? 'body') as HttpPart;
  let validate = compiled[part].get(schema);
  if (!validate) {
    validate = part === 'body' ? bodyAjv.compile(schema) : withPlainText(schema, textAjv.compile(schema));
    compiled[part].set(schema, validate);
  }
  return validate as ReturnType<FastifySchemaCompiler<object>>;
};

/**
 * After one part of a request failed its schema: every part validated, so the answer names every bad field (fastify
 * stops at the first failing part: params, body, querystring, headers, in that order). Undefined when the route
 * has no schema left that fails (then the original error stands).
 */
export function validateEveryPart(request: FastifyRequest): AppError | undefined {
  const schemas = (request.routeOptions.schema ?? {}) as Partial<Record<HttpPart, object>>;
  const data: Record<HttpPart, unknown> = {
    params: request.params,
    body: request.body,
    querystring: request.query,
    headers: request.headers,
  };
  const parts: PartErrors[] = [];
  for (const part of ['params', 'body', 'querystring', 'headers'] as const) {
    const schema = schemas[part];
    if (!schema || typeof schema !== 'object') continue;
    const validate = validatorCompiler({
      schema,
      httpPart: part,
      method: request.method,
      url: request.routeOptions.url ?? '',
    }) as unknown as ValidateFunction;
    if (!validate(data[part] ?? null)) parts.push({ context: part, errors: validate.errors ?? [] });
  }
  return parts.length > 0 ? validationFailedOf(parts) : undefined;
}

const decimalInteger = /^-?\d+$/;
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const controlCharacter = /[\u0000-\u001f\u007f]/;

/**
 * The text checks Ajv's coercion skips, run before it on the raw strings of a query string or path: a control
 * character in any declared parameter, and an integer parameter written otherwise than in decimal digits or
 * beyond ±(2^53 - 1). Their errors come first, so they are the ones named for that field.
 */
function withPlainText(schema: object, validate: ValidateFunction): ValidateFunction {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const names = Object.keys(properties);
  const integers = new Set(names.filter((name) => properties[name]?.type === 'integer'));
  const checked = ((data: unknown, context?: unknown) => {
    const problems: ErrorObject[] = [];
    if (data !== null && typeof data === 'object') {
      for (const name of names) {
        const value = (data as Record<string, unknown>)[name];
        if (typeof value !== 'string') continue;
        const problem = controlCharacter.test(value)
          ? 'must not contain control characters'
          : integers.has(name) && !decimalInteger.test(value)
            ? 'must be a whole number written in decimal digits'
            : integers.has(name) && !Number.isSafeInteger(Number(value))
              ? `must be a whole number from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`
              : undefined;
        if (problem)
          problems.push({
            keyword: 'plainText',
            instancePath: `/${name}`,
            schemaPath: `#/properties/${name}/plainText`,
            params: {},
            message: problem,
          });
      }
    }
    const valid = (validate as (data: unknown, context?: unknown) => boolean)(data, context);
    checked.errors = problems.length > 0 ? [...problems, ...(validate.errors ?? [])] : validate.errors;
    return valid && problems.length === 0;
  }) as ValidateFunction;
  // fastify passes the parent object (so Ajv may coerce a root value) only to functions carrying schemaEnv.
  Object.assign(checked, { schemaEnv: validate.schemaEnv, schema: validate.schema });
  return checked;
}
