import { describe, expect, it } from 'vitest';
import { accountForm, accountMessages, accountPayloadOf, addAccountRequest, brokerageOf } from './accounts.ts';

describe('account form', () => {
  const base = { accountName: '  Main  ', accountType: '2', brokerage: 'schwab', commission: '0.65', fee: '0.03' };

  it('parses typed values and maps them to the API payload', () => {
    const r = accountForm.parse(base);
    expect(accountPayloadOf(r)).toEqual({ name: 'Main', ac_type: 2, broker: 'schwab', broker_commission: 0.65, broker_fee: 0.03 });
    expect(addAccountRequest.parse({ name: 'X', broker: 'other', ac_type: 6 })).toMatchObject({ broker_commission: 0.65, broker_fee: 0.03 });
    expect(brokerageOf('other')?.login_url).toBeNull();
  });

  it.each([
    [{ accountName: ' ' }, accountMessages.nameRequired],
    [{ accountType: '' }, accountMessages.typeRequired],
    [{ accountType: '7' }, accountMessages.typeRequired],
    [{ brokerage: '' }, accountMessages.brokerageRequired],
    [{ commission: '' }, accountMessages.commission],
    [{ commission: '-1' }, accountMessages.commission],
    [{ commission: 'abc' }, accountMessages.commission],
    [{ fee: '' }, accountMessages.fee],
    [{ fee: '-0.5' }, accountMessages.fee],
    // Step 0.01 (QA: 0.005 was kept, and the card showed 0.01); a huge amount is not "non-negative".
    [{ fee: '0.005' }, accountMessages.feeStep],
    [{ commission: '0.123456' }, accountMessages.commissionStep],
    [{ commission: '1000001' }, accountMessages.commissionMax],
  ])('%j gives the spec message', (over, message) => {
    const r = accountForm.safeParse({ ...base, ...over });
    expect(r.error?.issues.map((i) => i.message)).toEqual([message]);
  });
});

describe('commission and fee at the API', () => {
  it('takes whole cents up to 1,000,000, and nothing finer or larger', () => {
    for (const n of [0, 0.01, 0.65, 0.07, 1.1, 0.29, 1_000_000]) expect(addAccountRequest.safeParse({ name: 'X', broker: 'other', ac_type: 6, broker_commission: n, broker_fee: n }).success).toBe(true);
    const issue = (over: object) => addAccountRequest.safeParse({ name: 'X', broker: 'other', ac_type: 6, ...over }).error?.issues[0]?.message;
    expect(issue({ broker_fee: 0.005 })).toBe(accountMessages.feeStep);
    expect(issue({ broker_commission: 1_000_001 })).toBe(accountMessages.commissionMax);
    expect(issue({ broker_commission: -0.01 })).toBe(accountMessages.commission);
    expect(issue({ broker_commission: 'x' })).toBe(accountMessages.commission);
  });
});
