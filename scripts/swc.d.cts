import type { Options } from '@swc/core';

export function swcOptions(moduleType: 'es6' | 'commonjs'): Options;
