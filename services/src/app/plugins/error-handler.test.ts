import { describe, expect, it } from 'vitest';
import { readableIssue } from './error-handler.ts';

describe('validation messages', () => {
  it("names the field in zod's own texts, and keeps a schema's own message as it is", () => {
    expect(readableIssue('old_default', 'Invalid input: expected string, received undefined')).toBe('old_default is required.');
    expect(readableIssue('trade_data.contract_size', 'Too small: expected number to be >=1')).toBe('trade_data.contract_size: Too small: expected number to be >=1');
    expect(readableIssue('ac_type', 'Invalid option: expected one of 1|2')).toBe('ac_type: Invalid option: expected one of 1|2');
    // The spec's texts, and a problem with the whole body (no field to name), are left alone.
    expect(readableIssue('name', 'Account name is required.')).toBe('Account name is required.');
    expect(readableIssue('', 'Invalid input: expected object, received null')).toBe('Invalid input: expected object, received null');
  });
});
