/** Vite's `?raw` imports: a file's text (test fixtures). */
declare module '*?raw' {
  const text: string;
  export default text;
}
