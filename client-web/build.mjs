// Builds the browser client into dist/: bundles each page's script with
// esbuild (content-hashed names under assets/), fills the HTML templates
// and writes a .gz beside every text file. Builds into a temporary folder
// and swaps it in, so a failed build never leaves a half-written dist/.
import * as esbuild from 'esbuild';
import { readFileSync, writeFileSync, rmSync, renameSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative, basename } from 'node:path';
import { gzipSync, constants } from 'node:zlib';

const here = new URL('.', import.meta.url).pathname;
const out = join(here, 'dist');
const tmp = join(here, 'dist.tmp');
const pages = { index: 'lobby', play: 'play', watch: 'watch', replay: 'replay' };

rmSync(tmp, { recursive: true, force: true });
const result = await esbuild.build({
  entryPoints: Object.fromEntries(Object.values(pages).map((p) => [p, join(here, 'src', `${p}.js`)])),
  bundle: true,
  minify: true,
  sourcemap: 'linked',
  format: 'esm',
  splitting: true,
  target: ['es2020'],
  outdir: join(tmp, 'assets'),
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
  legalComments: 'linked',
});

// entry name -> { js, css } public paths
const assets = {};
for (const [file, info] of Object.entries(result.metafile.outputs)) {
  if (!info.entryPoint) continue;
  const name = basename(info.entryPoint, '.js');
  assets[name] = {
    js: '/' + relative(tmp, join(process.cwd(), file)),
    css: info.cssBundle ? '/' + relative(tmp, join(process.cwd(), info.cssBundle)) : '',
  };
}
for (const [page, entry] of Object.entries(pages)) {
  const a = assets[entry];
  if (!a || !a.css) throw new Error(`no bundle for ${entry}`);
  const html = readFileSync(join(here, 'src', `${page}.html`), 'utf8')
    .replaceAll('{{js}}', a.js).replaceAll('{{css}}', a.css);
  writeFileSync(join(tmp, `${page}.html`), html);
}

function* walk(dir) {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) yield* walk(p); else yield p;
  }
}
for (const f of walk(tmp)) {
  if (!/\.(html|js|css|map|txt|json|svg)$/.test(f)) continue;
  writeFileSync(f + '.gz', gzipSync(readFileSync(f), { level: constants.Z_BEST_COMPRESSION }));
}

if (existsSync(out)) rmSync(out, { recursive: true, force: true });
renameSync(tmp, out);
console.log(`client-web: built ${relative(process.cwd(), out) || out}`);
