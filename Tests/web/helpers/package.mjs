// The npm package clients/js as a web developer's project gets it: packed by clients/js/pack.sh,
// unpacked into a project's node_modules/reactorhub, next to Debian's React packages
// (/usr/share/nodejs, linked in as npm would install them).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from './processes.mjs';

/** Where Debian installs node modules (node-react, node-typescript, …). */
export const DEBIAN_MODULES = '/usr/share/nodejs';
const LINKED = ['react', 'react-dom', 'react-test-renderer', 'scheduler', 'react-is'];
// Declarations are copied: linked, TypeScript would resolve their own imports (csstype,
// prop-types) from /usr/share/nodejs, where no node_modules folder holds them.
const COPIED = ['@types/react', '@types/prop-types', '@types/scheduler', 'csstype'];

/** Packs clients/js into `dir`; returns the tarball's path. */
export function pack(dir) {
  return execFileSync(join(ROOT, 'clients/js/pack.sh'), [dir], { encoding: 'utf8' }).trim();
}

/** A project folder whose node_modules holds the packed reactorhub and Debian's React. */
export function consumerProject() {
  const missing = [...LINKED, ...COPIED].filter((name) => !existsSync(join(DEBIAN_MODULES, name)));
  if (missing.length > 0) throw new Error(`Debian's ${missing.join(', ')} missing in ${DEBIAN_MODULES}: run scripts/ensure-deps.sh test`);
  const project = mkdtempSync(join(tmpdir(), 'rh-consumer-'));
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, 'reactorhub'), { recursive: true });
  execFileSync('tar', ['-xzf', pack(project), '-C', join(modules, 'reactorhub'), '--strip-components=1']);
  for (const name of LINKED) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(DEBIAN_MODULES, name), join(modules, name));
  }
  for (const name of COPIED) cpSync(join(DEBIAN_MODULES, name), join(modules, name), { recursive: true, dereference: true });
  return project;
}
