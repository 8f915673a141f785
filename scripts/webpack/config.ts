import fs from 'node:fs';
import path from 'node:path';
import webpack, { Compilation, type Compiler, type Configuration } from 'webpack';
import HtmlWebpackPlugin from 'html-webpack-plugin';
import TerserPlugin from 'terser-webpack-plugin';
import { ModuleFederationPlugin } from '@module-federation/enhanced/webpack';
import { REMOTES, ROUTES_FILE, SHELL, exposesOf, type RemoteName } from './packages';
import { sharedConfig } from './federation';
import { swcOptions } from '../swc.cjs';

export const ROOT = path.resolve(__dirname, '../..');

export interface BuildOptions {
  mode: 'production' | 'development';
  /** Output folder; defaults to <package>/dist. */
  outDir?: string;
  /** Shown by each screen as data-build and written in a remote's routes.json, so a redeploy is visible. */
  buildId?: string;
}

const buildIdOf = (opts: BuildOptions) => opts.buildId ?? new Date().toISOString();

function base(dir: string, opts: BuildOptions, entry: Configuration['entry']): Configuration {
  const pkgDir = path.join(ROOT, dir);
  return {
    mode: opts.mode,
    context: pkgDir,
    entry,
    devtool: opts.mode === 'production' ? false : 'eval-cheap-module-source-map',
    output: {
      path: opts.outDir ?? path.join(pkgDir, 'dist'),
      publicPath: 'auto',
      filename: '[name].[contenthash:8].js',
      chunkFilename: '[name].[contenthash:8].js',
      uniqueName: dir.replace(/-/g, '_'),
      clean: true,
    },
    resolve: {
      extensions: ['.tsx', '.ts', '.js'],
      // csv-stringify's default build expects Node's Buffer; its browser build carries its own.
      alias: {
        'csv-stringify/sync$': 'csv-stringify/browser/esm/sync',
        // The package itself, under a name the shared 'react-router' key does not catch: how the
        // module the shell provides under that key reaches it (shared-ui/src/router says why).
        'react-router-package$': 'react-router',
        // jsPDF's html() and SVG import, which the statement never calls, pull these in as chunks
        // of every release: an empty module in their place keeps them out.
        html2canvas: false,
        canvg: false,
        dompurify: false,
      },
    },
    module: {
      rules: [
        {
          test: /\.tsx?$/,
          exclude: /node_modules/,
          // Type checking is its own step (npm run typecheck); builds only transpile (scripts/swc.cjs).
          use: { loader: 'swc-loader', options: swcOptions('es6') },
        },
      ],
    },
    // swc minifies as terser does, several times faster on two CPUs.
    optimization: { minimizer: [new TerserPlugin({ minify: TerserPlugin.swcMinify })] },
    performance: { hints: false },
    infrastructureLogging: { level: 'error' },
    stats: 'errors-warnings',
    plugins: [new webpack.DefinePlugin({ __BUILD_ID__: JSON.stringify(buildIdOf(opts)) })],
  };
}

const page = () => fs.readFileSync(path.join(ROOT, SHELL.dir, 'public/index.html'), 'utf8');

export function shellConfig(opts: BuildOptions): Configuration {
  const config = base(SHELL.dir, opts, './src/index.tsx');
  config.output!.publicPath = '/';
  config.plugins!.push(
    new ModuleFederationPlugin({
      name: 'shell',
      remotes: {}, // registered at run time from /config.json
      shared: sharedConfig(true),
      shareStrategy: 'loaded-first',
      dts: false,
      experiments: { asyncStartup: true },
    }),
    // The page as text, not as a template: a template is compiled by a child compiler, which
    // would emit a Node copy of the shared router beside the browser's. index.html, served at /,
    // has the landing page written in (shell/src/prerender.tsx); app.html, served at every other
    // address, has not.
    new HtmlWebpackPlugin({
      templateContent: async () => (await import('../../shell/src/prerender')).withLandingPage(page()),
      favicon: './public/favicon.svg',
    }),
    new HtmlWebpackPlugin({ filename: SHELL.appPage, templateContent: page }),
  );
  return config;
}

export function remoteConfig(name: RemoteName, opts: BuildOptions): Configuration {
  const remote = REMOTES[name];
  // No entry of its own: browsers load only remoteEntry.js and the exposed chunks.
  const build = buildIdOf(opts);
  const config = base(remote.dir, { ...opts, buildId: build }, {});
  config.plugins!.push(
    new ModuleFederationPlugin({
      name,
      filename: 'remoteEntry.js',
      exposes: exposesOf(remote.manifest),
      shared: sharedConfig(false),
      shareStrategy: 'loaded-first',
      manifest: true,
      dts: false,
      experiments: { asyncStartup: true },
    }),
    // The remote's routes for the shell, as data: written from the same manifest as `exposes`,
    // with the build's id, by which the shell tells a newer release from the one it loaded.
    {
      apply(compiler: Compiler) {
        compiler.hooks.thisCompilation.tap('RemoteRoutes', (compilation) => {
          compilation.hooks.processAssets.tap(
            { name: 'RemoteRoutes', stage: Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL },
            () => {
              compilation.emitAsset(
                ROUTES_FILE,
                new compiler.webpack.sources.RawSource(`${JSON.stringify({ ...remote.manifest, build }, null, 2)}\n`),
              );
            },
          );
        });
      },
    },
  );
  return config;
}
