// Every JSON response the integration suite receives must match the response schema its route
// declares for that status (and a route must declare one for every status it answers). Checked
// on the value before serialisation, which would otherwise quietly drop or coerce what does not
// fit. A breach fails the request with a 500 and the reason in the log, so the test that caused
// it fails where it happened.
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import type { RouteModule } from '../src/route-module.ts';

const ajv = new Ajv({ allErrors: true, strict: false });
// ajv-formats is CommonJS: its function is the module itself, or its `default` under some loaders.
const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as unknown as (ajv: Ajv) => void;
addFormats(ajv);
const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  const known = compiled.get(schema);
  if (known) return known;
  const validate = ajv.compile(schema);
  compiled.set(schema, validate);
  return validate;
}

export class ResponseContractBreach extends Error {
  override name = 'ResponseContractBreach';
}

/** A route module that installs the check in the context it is registered in (first, before the routes). */
export const checkResponseContract: RouteModule = (app) => {
  app.addHook('preSerialization', async (request, reply, payload) => {
    const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
    const responses = (request.routeOptions.schema as { response?: Record<string, object> } | undefined)?.response;
    if (!responses) return payload;
    const schema = responses[reply.statusCode] ?? responses[`${String(reply.statusCode)[0]}xx`];
    if (!schema) throw new ResponseContractBreach(`${route} answered ${reply.statusCode}, which it declares no response schema for`);
    const validate = validatorOf(schema);
    if (!validate(payload)) {
      throw new ResponseContractBreach(`${route} answered ${reply.statusCode} outside its declared schema: ${ajv.errorsText(validate.errors)}`);
    }
    return payload;
  });
};
