/**
 * The hits list drawn with the DOM directly, in InstantSearch's markup (`ais-Hits-*`, its theme's styles): one
 * article per hit with the title highlighted, the text as a snippet and the other displayed fields in a line.
 * The stock widget renders each hit through Preact components (Highlight, Snippet, the insights wrapper), the
 * largest share of the page's work per keystroke; the connector has already escaped the highlighted values and
 * turned their tags into `<mark>`, so they are set as HTML as they come. InstantSearch renders every widget twice
 * per keystroke, once as the search starts (status `loading`, the previous results) and once with its answer: the
 * list is drawn only for results it has not drawn, so the browser does not lay out and paint the same hits again
 * while the answer is on its way.
 */
import { connectHits } from 'instantsearch.js/es/connectors';
import type { Hit } from 'instantsearch.js';

export interface HitsParams {
  container: HTMLElement;
  /** The field shown as the highlighted heading (the id when absent). */
  title?: string;
  /** The field shown as a snippet under it. */
  text?: string;
  /** The line of other fields under each hit. */
  details: (hit: Hit) => string;
}

/** A highlight or snippet value as the connector escaped it, its marks styled like InstantSearch's own. */
function marked(result: unknown): string | undefined {
  const value = (result as { value?: unknown } | undefined)?.value;
  return typeof value === 'string' ? value.replaceAll('<mark>', '<mark class="ais-Highlight-highlighted">') : undefined;
}

function escaped(text: string): string {
  const holder = document.createElement('span');
  holder.textContent = text;
  return holder.innerHTML;
}

function article(hit: Hit, { title, text, details }: HitsParams): HTMLElement {
  const entry = document.createElement('article');
  entry.className = 'hit';
  entry.dataset.id = hit.objectID;
  const heading = document.createElement('h3');
  heading.innerHTML = (title && marked(hit._highlightResult?.[title])) ?? escaped(String((title && hit[title]) ?? hit.objectID));
  entry.append(heading);
  if (text) {
    const snippet = document.createElement('p');
    snippet.innerHTML = marked(hit._snippetResult?.[text]) ?? escaped(String(hit[text] ?? ''));
    entry.append(snippet);
  }
  const line = document.createElement('div');
  line.className = 'details';
  line.textContent = details(hit);
  entry.append(line);
  return entry;
}

/** Per container, the results its list shows. */
const drawnResults = new WeakMap<HTMLElement, object>();

/** `hits` on `container`: the hits of the last results, or a line saying none matched the query. */
export const hits = connectHits<HitsParams>(({ items, results, widgetParams }) => {
  if (results) {
    if (drawnResults.get(widgetParams.container) === results) return;
    drawnResults.set(widgetParams.container, results);
  }
  const root = document.createElement('div');
  if (results && items.length === 0) {
    root.className = 'ais-Hits ais-Hits--empty';
    const empty = document.createElement('p');
    empty.className = 'empty';
    const query = document.createElement('q');
    query.textContent = results.query;
    empty.append('No results for ', query, '.');
    root.append(empty);
  } else {
    root.className = 'ais-Hits';
    const list = document.createElement('ol');
    list.className = 'ais-Hits-list';
    list.append(
      ...items.map((hit) => {
        const entry = document.createElement('li');
        entry.className = 'ais-Hits-item';
        entry.append(article(hit, widgetParams));
        return entry;
      }),
    );
    root.append(list);
  }
  widgetParams.container.replaceChildren(root);
});
