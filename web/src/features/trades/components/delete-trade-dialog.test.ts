import { describe, expect, it } from 'vitest';
import { deleteLeaves } from './delete-trade-dialog.tsx';

describe('deleteLeaves', () => {
  it('says what stays when the trade came from a roll, a split or a partial close', () => {
    expect(deleteLeaves({ rf: 'parent', auid: null, pf: null })).toMatch(/rolled from stays closed as Rolled/);
    expect(deleteLeaves({ rf: null, auid: 'spread', pf: null })).toMatch(/closed leg stays in the Closed list/);
    expect(deleteLeaves({ rf: null, auid: null, pf: 'whole' })).toMatch(/contracts already closed stay in the Closed list/);
  });
  it('says nothing more for a trade entered on its own', () => {
    expect(deleteLeaves({ rf: null, auid: null, pf: null })).toBeNull();
  });
});
