/** Small DOM helpers of the page's own widget renderers. */

/** Formats counts as `toLocaleString()` does, without building a formatter per call (about 60 µs each in Chromium). */
export const formatCount = new Intl.NumberFormat().format;

/** A new element with a class name and, when given, its text. */
export function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const created = document.createElement(tag);
  created.className = className;
  if (text !== undefined) created.textContent = text;
  return created;
}
