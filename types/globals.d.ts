/** Replaced at build time by webpack's DefinePlugin. */
declare const __BUILD_ID__: string;
