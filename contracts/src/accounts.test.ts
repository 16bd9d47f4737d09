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
  ])('%j gives the spec message', (over, message) => {
    const r = accountForm.safeParse({ ...base, ...over });
    expect(r.error?.issues.map((i) => i.message)).toEqual([message]);
  });
});
