// esbuild bundles the numbered migrations as text (scripts/build.mjs, loader `.sql: text`).
declare module '*.sql' {
  const text: string;
  export default text;
}
