// The npm package (clients/js): its tarball's files, its main module (web/reactorhub.js, one
// source), and its declarations compiled by Debian's TypeScript with the types that
// `reactorhub types` prints for a live daemon: a consumer of the whole API passes, one with a
// wrong action fails with the compiler's words for it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BINARY, ROOT, OUTPUT, liveSuite, startDaemon } from './helpers/processes.mjs';
import { consumerProject, pack } from './helpers/package.mjs';

const TSC = process.env.TSC || '/usr/bin/tsc';
const TSCONFIG = {
  compilerOptions: {
    strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'],
  },
  include: ['*.ts'],
};

test('the package: name, module type, exports of . and ./react, and the demo page\'s file as its main module', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'clients/js/package.json'), 'utf8'));
  assert.equal(manifest.name, 'reactorhub');
  assert.match(manifest.version, /^\d+\.\d+\.\d+$/);
  assert.equal(manifest.type, 'module');
  assert.deepEqual(Object.keys(manifest.exports), ['.', './react', './package.json']);
  assert.deepEqual(manifest.exports['.'], { types: './reactorhub.d.ts', default: './reactorhub.js' });
  assert.deepEqual(manifest.exports['./react'], { types: './react.d.ts', default: './react.js' });
  assert.equal(manifest.dependencies, undefined, 'nothing bundled: React is a peer');
  assert.ok(lstatSync(join(ROOT, 'clients/js/reactorhub.js')).isSymbolicLink(), 'a link, not a copy');
  assert.equal(realpathSync(join(ROOT, 'clients/js/reactorhub.js')), realpathSync(join(ROOT, 'web/reactorhub.js')));
});

test('pack.sh makes a tarball of exactly the package\'s files, reactorhub.js as a file with the served bytes', () => {
  const dir = join(OUTPUT, 'pack');
  mkdirSync(dir, { recursive: true });
  const tarball = pack(dir);
  assert.equal(tarball, join(dir, 'reactorhub-0.1.0.tgz'));
  const listing = execFileSync('tar', ['tvf', tarball], { encoding: 'utf8' }).trim().split('\n');
  assert.deepEqual(listing.map((line) => line.split(/\s+/).at(-1)), [
    'package/', 'package/README.md', 'package/package.json', 'package/react.d.ts', 'package/react.js', 'package/reactorhub.d.ts', 'package/reactorhub.js',
  ]);
  assert.ok(listing.slice(1).every((line) => line.startsWith('-rw-r--r--')), `regular files only, no link:\n${listing.join('\n')}`);
  const main = execFileSync('tar', ['xOzf', tarball, 'package/reactorhub.js']);
  assert.deepEqual(main, readFileSync(join(ROOT, 'web/reactorhub.js')));
});

test('every public name of reactorhub.js is declared in reactorhub.d.ts, and every hook in react.d.ts', async () => {
  const main = await import(join(ROOT, 'web/reactorhub.js'));
  const declarations = readFileSync(join(ROOT, 'clients/js/reactorhub.d.ts'), 'utf8');
  for (const name of Object.keys(main)) {
    assert.match(declarations, new RegExp(`export declare (const|function|class) ${name}\\b`), `${name} is not declared`);
  }
  const hooks = readFileSync(join(ROOT, 'clients/js/react.js'), 'utf8');
  const hookDeclarations = readFileSync(join(ROOT, 'clients/js/react.d.ts'), 'utf8');
  for (const [, name] of hooks.matchAll(/^export function (\w+)/gm)) {
    assert.match(hookDeclarations, new RegExp(`export declare function ${name}\\b`), `${name} is not declared`);
  }
});

liveSuite('the package\'s types against a live daemon', import.meta.url, () => {
  let daemon;
  let project;

  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    daemon = await startDaemon({ logLevel: 'warning' }, join(OUTPUT, 'node-package-daemon.log'));
    project = consumerProject();
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    const generated = spawnSync(BINARY, ['types', '--url', daemon.url], { encoding: 'utf8' });
    assert.equal(generated.status, 0, generated.stderr);
    writeFileSync(join(project, 'reactorhub-kinds.d.ts'), generated.stdout);
  });

  after(() => daemon?.stop());

  const compile = (source) => {
    writeFileSync(join(project, 'consumer.ts'), source);
    return spawnSync(TSC, ['-p', join(project, 'tsconfig.json')], { encoding: 'utf8', cwd: project });
  };

  test('reactorhub types prints one declaration file for every kind of the hello', () => {
    const text = readFileSync(join(project, 'reactorhub-kinds.d.ts'), 'utf8');
    assert.match(text, /^declare module 'reactorhub' \{$/m);
    for (const kind of ['Counter', 'Doc', 'Todo', 'Weather']) {
      assert.match(text, new RegExp(`export type ${kind}Action =`));
      assert.match(text, new RegExp(`export type ${kind}Pulse =`));
    }
    assert.match(text, /\| \{ type: "add"; title: string \}/);
    assert.match(text, /\| \{ type: "move"; from: number; to: number \}/);
    assert.match(text, /export type CounterPulse = \{ name: "alertMessage"; value: unknown \};/);
    assert.match(text, /todo: \{ actions: TodoAction; pulses: TodoPulse; state: unknown \};/);
  });

  test('tsc --strict (nodenext, es2022, no skipLibCheck) passes on a consumer of the whole API', () => {
    const result = compile(readFileSync(join(ROOT, 'Tests/web/fixtures/consumer.ts'), 'utf8'));
    assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
    assert.equal(result.stdout, '');
  });

  test('tsc fails on wrong actions for typed addresses, and names what is wrong', () => {
    const result = compile(readFileSync(join(ROOT, 'Tests/web/fixtures/wrong-actions.ts'), 'utf8'));
    assert.notEqual(result.status, 0);
    // One error per wrong line (with the compiler's explanation indented under it).
    const errors = result.stdout.trim().split(/\n(?=consumer\.ts\()/);
    const byLine = new Map(errors.map((text) => [Number(text.match(/^consumer\.ts\((\d+),\d+\): error TS\d+/)[1]), text]));
    assert.deepEqual([...byLine.keys()], [6, 8, 10, 12, 14, 16], result.stdout);
    assert.match(byLine.get(6), /'titel' does not exist in type '\{ type: "add"; title: string; \}'. Did you mean to write 'title'\?/);
    assert.match(byLine.get(8), /Type '"jump"' is not assignable to type '"add" \| "remove" \| "toggle" \| "move" \| "clearCompleted" \| "rename"'/);
    assert.match(byLine.get(10), /Property 'title' is missing in type '\{ type: "add"; \}' but required in type '\{ type: "add"; title: string; \}'/);
    assert.match(byLine.get(12), /'idd' does not exist in type '\{ type: "toggle"; id: string; \}'/);
    assert.match(byLine.get(14), /Argument of type '"increase"' is not assignable to parameter of type '"clearCompleted"'/);
    assert.match(byLine.get(16), /Type 'string' is not assignable to type 'number'/);
  });
});
