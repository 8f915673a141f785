// Remotes expose one default-exported screen component per module.
declare module '*.png' {
  const url: string;
  export default url;
}
