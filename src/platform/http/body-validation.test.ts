import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { ApiError, type ValidationIssue } from './api-error.ts';
import { readBody, valueOrRefuse } from './body-validation.ts';
import { MAX_REPORTED_ISSUES } from './error-handler.ts';

const Body = Type.Object({ name: Type.String(), count: Type.Optional(Type.Integer()) });
const issue = (field: string, message: string): ValidationIssue => ({ field, message, code: 'VALIDATION_ERROR' });

describe('readBody', () => {
  it('gives the value its checks build when neither the schema nor the checks refuse it', () => {
    const read = readBody(Body, { value: { name: 'a', count: 2 }, issues: [] }, { value: (body) => `${body.name}×${body.count}` });
    expect(read).toEqual({ ok: true, value: 'a×2' });
  });

  it('gives the body itself without a value builder', () => {
    expect(readBody(Body, { value: { name: 'a' }, issues: [] })).toEqual({ ok: true, value: { name: 'a' } });
  });

  it("lists the schema's errors, then the checks', de-duplicated, and tells the checks which fields the schema refused", () => {
    let refused: string[] = [];
    const read = readBody(Body, { value: { name: 1 }, issues: [issue('name', 'must be string')] }, {
      errors: (_body, schemaRefused) => {
        refused = [...schemaRefused];
        return [issue('name', 'must be string'), issue('count', 'is required with name')];
      },
      value: () => {
        throw new Error('a refused body builds no value');
      },
    });
    expect(refused).toEqual(['name']);
    expect(read).toEqual({ ok: false, errors: [issue('name', 'must be string'), issue('count', 'is required with name')] });
  });

  it('reports no more errors than a response does', () => {
    const many = Array.from({ length: MAX_REPORTED_ISSUES + 5 }, (_, i) => issue(`f${i}`, 'is invalid'));
    const read = readBody(Body, { value: {}, issues: many });
    expect(read.ok ? [] : read.errors).toEqual(many.slice(0, MAX_REPORTED_ISSUES));
  });
});

describe('valueOrRefuse', () => {
  it('answers a refusal with the 422 listing every error, in order', () => {
    const errors = [issue('b', 'x'), issue('a', 'y')];
    let thrown: unknown;
    try {
      valueOrRefuse({ ok: false, errors });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', detail: 'The request body failed validation', validation: errors });
    expect(valueOrRefuse({ ok: true, value: 7 })).toBe(7);
  });
});
