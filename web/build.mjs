// Builds web/dist/, the files fathom serve embeds: app.js and app.css (esbuild, minified),
// favicon.svg, and index.html naming the first two with a hash of their content so that a
// browser never mixes an old asset with a new page.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const web = dirname(fileURLToPath(import.meta.url));
const dist = join(web, 'dist');
const uplot = JSON.parse(readFileSync(join(web, 'node_modules', 'uplot', 'package.json'), 'utf8'));

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist);

await build({
  entryPoints: [join(web, 'src', 'main.js')],
  outfile: join(dist, 'app.js'),
  bundle: true,
  format: 'esm',
  minify: true,
  target: ['chrome100', 'firefox100', 'safari15'],
  legalComments: 'none',
  banner: { js: `/*! uPlot ${uplot.version} (c) Leon Sorokin, MIT License */` },
  logLevel: 'warning',
});

copyFileSync(join(web, 'src', 'favicon.svg'), join(dist, 'favicon.svg'));

const hash = (name) => createHash('sha256').update(readFileSync(join(dist, name))).digest('hex').slice(0, 12);
const page = readFileSync(join(web, 'index.html'), 'utf8')
  .replace('%JS_HASH%', hash('app.js'))
  .replace('%CSS_HASH%', hash('app.css'));
writeFileSync(join(dist, 'index.html'), page);
