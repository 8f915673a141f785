import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../../..');
const SOURCES = [
  'shell/src',
  'shared-ui/src',
  ...fs
    .readdirSync(ROOT)
    .filter((d) => d.startsWith('mf-'))
    .map((d) => `${d}/src`),
];

/** The names shared-ui/src/router provides, read from its text: importing it would need the build's alias. */
const provided = new Set(
  fs
    .readFileSync(path.join(__dirname, 'index.ts'), 'utf8')
    .match(/export\s*\{([^}]*)\}/)![1]!
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean),
);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    // Tests, and the landing page's prerender (run by the build in Node), run on the real package,
    // not on what the shell provides.
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && e.name !== 'prerender.tsx' ? [full] : [];
  });
}

/** The value names a file imports from 'react-router' (type-only names are erased by the compiler). */
function routerImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'react-router'/g)]
    .filter((m) => !m[1])
    .flatMap((m) => m[2]!.split(','))
    .map((name) => name.trim())
    .filter((name) => name && !name.startsWith('type '))
    .map((name) => name.split(/\s+as\s+/)[0]!);
}

test('every name the app imports from react-router is one the shell provides', () => {
  const files = SOURCES.flatMap((dir) => sourceFiles(path.join(ROOT, dir)));
  const asked = new Map<string, string>();
  for (const file of files) for (const name of routerImports(file)) asked.set(name, path.relative(ROOT, file));
  expect(asked.size).toBeGreaterThan(5);
  const missing = [...asked].filter(([name]) => !provided.has(name)).map(([name, file]) => `${name} (${file})`);
  expect(missing).toEqual([]);
});

test('nothing imports react-router as a namespace or by default, which would need all of it', () => {
  const files = SOURCES.flatMap((dir) => sourceFiles(path.join(ROOT, dir)));
  const whole = files.filter((f) =>
    /import\s+(\*\s+as\s+\w+|\w+)\s+from\s+'react-router'/.test(fs.readFileSync(f, 'utf8')),
  );
  expect(whole).toEqual([]);
});

test('only the provided module reaches the package past the shared key, or there would be two routers', () => {
  const files = SOURCES.flatMap((dir) => sourceFiles(path.join(ROOT, dir)));
  const past = files.filter((f) => fs.readFileSync(f, 'utf8').includes("from 'react-router-package'"));
  expect(past.map((f) => path.relative(ROOT, f))).toEqual(['shared-ui/src/router/index.ts']);
});
