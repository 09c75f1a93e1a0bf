import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mismatch, withUri } from '../contract/cases';

describe('contract case matching (lsp/testdata/contract/README.md)', () => {
  it('matches objects by the keys they name, with $absent and $any', () => {
    assert.equal(mismatch({ a: 1, b: '$any', c: '$absent' }, { a: 1, b: { x: 2 }, d: 4 }), undefined);
    assert.match(mismatch({ c: '$absent' }, { c: 0 })!, /want it absent/);
    assert.match(mismatch({ b: '$any' }, {})!, /\$\.b: missing/);
  });
  it('matches arrays exactly in length and order', () => {
    assert.equal(mismatch([1, { a: 2 }], [1, { a: 2, b: 3 }]), undefined);
    assert.match(mismatch([1], [1, 2])!, /want 1 elements, got 2/);
  });
  it('matches strings exactly or by re: pattern, and scalars by equality', () => {
    assert.equal(mismatch('re:^\\[1\\] ✓ [0-9.]+ ms', '[1] ✓ 0.25 ms · monty'), undefined);
    assert.match(mismatch('re:^x$', 'xy')!, /does not match/);
    assert.equal(mismatch(null, null), undefined);
    assert.match(mismatch(2, '2')!, /want 2, got "2"/);
  });
  it('substitutes $uri everywhere', () => {
    assert.deepEqual(withUri({ a: ['$uri', { b: '$uri' }], c: 'x' }, 'file:///d.py'), { a: ['file:///d.py', { b: 'file:///d.py' }], c: 'x' });
  });
});
