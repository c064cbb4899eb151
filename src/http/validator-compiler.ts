import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * Request validation with two Ajv instances. Bodies are JSON, so their types are taken as sent: a string where
 * an integer belongs is an error (integers stay integers), and unknown fields are errors where a schema closes
 * its object (no mass assignment). Query strings and path parameters are text by nature, so those are coerced
 * (`limit=5` becomes 5). Both report every problem, not only the first, so the error names every bad field.
 */
const bodyAjv = new Ajv({ allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: true, strict: false });
const textAjv = new Ajv({ allErrors: true, coerceTypes: true, removeAdditional: false, useDefaults: true, strict: false });

const compiled = new WeakMap<object, ValidateFunction>();

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  // Route schemas are shared objects (the same TUID params on many routes): compile each once per instance.
  let validate = httpPart === 'body' ? undefined : compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    if (httpPart !== 'body') compiled.set(schema, validate);
  }
  return validate as ReturnType<FastifySchemaCompiler<object>>;
};
