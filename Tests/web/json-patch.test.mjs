// RFC 6902 apply of web/reactorhub.js against the public json-patch-tests suite
// (Tests/JSONTests/Resources/json-patch-tests), plus atomicity and sharing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { applyPatch, PatchError, parsePointer, jsonEqual, cloneJSON } from '../../web/reactorhub.js';

const suiteDir = new URL('../JSONTests/Resources/json-patch-tests/', import.meta.url);
const files = ['tests.json', 'spec_tests.json'];
const counts = { cases: 0, disabled: 0, expected: 0, errors: 0 };

for (const file of files) {
  const cases = JSON.parse(readFileSync(new URL(file, suiteDir), 'utf8'));
  cases.forEach((entry, index) => {
    counts.cases += 1;
    const name = `${file}#${index} ${entry.comment ?? ''}`.trim();
    if (entry.disabled) {
      counts.disabled += 1;
      return;
    }
    if ('error' in entry) {
      counts.errors += 1;
      test(`conformance: ${name} (error expected)`, () => {
        const before = JSON.stringify(entry.doc);
        assert.throws(() => applyPatch(entry.doc, entry.patch), PatchError, `expected: ${entry.error}`);
        assert.equal(JSON.stringify(entry.doc), before, 'the document was changed by a failing patch');
      });
    } else {
      counts.expected += 1;
      test(`conformance: ${name}`, () => {
        const before = JSON.stringify(entry.doc);
        const result = applyPatch(entry.doc, entry.patch);
        assert.ok(jsonEqual(result, 'expected' in entry ? entry.expected : entry.doc), `got ${JSON.stringify(result)}`);
        assert.equal(JSON.stringify(entry.doc), before, 'the input document was mutated');
      });
    }
  });
}

test('conformance: the suite has the expected number of cases', () => {
  // tests.json: 95 cases (3 disabled); spec_tests.json: 17 cases (1 disabled).
  assert.deepEqual(counts, { cases: 112, disabled: 4, expected: 74, errors: 34 });
  console.log(`json-patch-tests: ${counts.cases} cases, ${counts.expected + counts.errors} run ` +
    `(${counts.expected} with an expected document, ${counts.errors} expected to fail), ${counts.disabled} disabled`);
});

test('a failing patch is atomic: earlier operations are not kept', () => {
  const doc = { a: 1, list: [1, 2] };
  assert.throws(() => applyPatch(doc, [
    { op: 'replace', path: '/a', value: 2 },
    { op: 'add', path: '/list/0', value: 0 },
    { op: 'remove', path: '/missing' },
  ]), (error) => error instanceof PatchError && error.index === 2 && /missing/.test(error.message));
  assert.deepEqual(doc, { a: 1, list: [1, 2] });
});

test('unchanged subtrees are shared, changed paths are copied', () => {
  const doc = { items: [{ id: 'a' }, { id: 'b' }], meta: { n: 1 } };
  const next = applyPatch(doc, [{ op: 'replace', path: '/items/1/id', value: 'c' }]);
  assert.notEqual(next, doc);
  assert.notEqual(next.items, doc.items);
  assert.equal(next.items[0], doc.items[0]);
  assert.equal(next.meta, doc.meta);
  assert.equal(doc.items[1].id, 'b');
});

test('values from the patch are copied, not aliased', () => {
  const value = { nested: [1] };
  const next = applyPatch({}, [{ op: 'add', path: '/v', value }]);
  value.nested.push(2);
  assert.deepEqual(next, { v: { nested: [1] } });
});

test('"__proto__" is an ordinary member', () => {
  const doc = JSON.parse('{"__proto__":{"x":1}}');
  const next = applyPatch(doc, JSON.parse('[{"op":"add","path":"/__proto__/y","value":2},{"op":"add","path":"/a","value":{}},{"op":"add","path":"/a/__proto__","value":3}]'));
  assert.equal(Object.getPrototypeOf(next), Object.prototype);
  assert.equal(Object.getPrototypeOf(next.a), Object.prototype);
  assert.equal(JSON.stringify(next), '{"__proto__":{"x":1,"y":2},"a":{"__proto__":3}}');
  assert.equal({}.y, undefined);
  assert.equal(JSON.stringify(cloneJSON(next)), JSON.stringify(next));
});

test('JSON Pointer escapes', () => {
  assert.deepEqual(parsePointer(''), []);
  assert.deepEqual(parsePointer('/a~1b/m~0n/~01'), ['a/b', 'm~n', '~1']);
  assert.throws(() => parsePointer('a'), PatchError);
  assert.throws(() => parsePointer('/a~2'), PatchError);
  assert.throws(() => parsePointer('/a~'), PatchError);
});

test('each of the six operations on a todo-like state', () => {
  let state = { items: [] };
  state = applyPatch(state, [{ op: 'add', path: '/items/-', value: { id: '1', title: 'a', done: false } }]);
  state = applyPatch(state, [{ op: 'add', path: '/items/0', value: { id: '2', title: 'b', done: false } }]);
  state = applyPatch(state, [{ op: 'replace', path: '/items/1/done', value: true }]);
  state = applyPatch(state, [{ op: 'move', from: '/items/0', path: '/items/1' }]);
  state = applyPatch(state, [{ op: 'copy', from: '/items/0/title', path: '/last' }]);
  state = applyPatch(state, [{ op: 'test', path: '/last', value: 'a' }, { op: 'remove', path: '/last' }]);
  assert.deepEqual(state, { items: [{ id: '1', title: 'a', done: true }, { id: '2', title: 'b', done: false }] });
  assert.throws(() => applyPatch(state, [{ op: 'test', path: '/items/0/done', value: false }]), PatchError);
  assert.throws(() => applyPatch(state, [{ op: 'jump', path: '/items' }]), /unknown operation/);
});
