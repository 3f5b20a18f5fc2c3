/**
 * A refinement list drawn with the DOM directly, in the markup and class names of InstantSearch's own
 * (`ais-RefinementList-*`, styled by its theme): the page has one per string facet and they redraw on every
 * keystroke, where the stock widget spends most of its time on a URL per value (`createURL`, unused by its
 * template) and on `toLocaleString` per count. This one redraws only when its values, counts or refinements
 * changed, and formats counts with one shared `Intl.NumberFormat`.
 */
import { connectRefinementList } from 'instantsearch.js/es/connectors';
import { element, formatCount } from './dom';

/** Per container, what it shows now (the key of the last drawing) and its elements. */
interface Drawn {
  key: string;
  root: HTMLElement;
  list: HTMLUListElement;
  showMore: HTMLButtonElement;
  /** The connector's latest `refine` and `toggleShowMore`. */
  refine: (value: string) => void;
  toggleShowMore: () => void;
}
const drawn = new WeakMap<HTMLElement, Drawn>();

/** `refinementList` with `container` (an element) and the connector's parameters (`attribute`, `limit`, `showMore`, …). */
export const refinementList = connectRefinementList<{ container: HTMLElement }>((options, isFirstRender) => {
  const { items, refine, canToggleShowMore, isShowingMore, toggleShowMore, widgetParams } = options;
  const { container } = widgetParams;
  let view = drawn.get(container);
  if (isFirstRender || !view) {
    const root = element('div', 'ais-RefinementList');
    const list = element('ul', 'ais-RefinementList-list');
    const showMore = element('button', 'ais-RefinementList-showMore');
    const created: Drawn = { key: '', root, list, showMore, refine, toggleShowMore };
    list.addEventListener('change', (event) => created.refine((event.target as HTMLInputElement).value));
    showMore.addEventListener('click', () => created.toggleShowMore());
    root.append(list);
    if (widgetParams.showMore) root.append(showMore);
    container.replaceChildren(root);
    drawn.set(container, (view = created));
  }
  view.refine = refine;
  view.toggleShowMore = toggleShowMore;
  const key = JSON.stringify([items.map((item) => [item.value, item.count, item.isRefined]), canToggleShowMore, isShowingMore]);
  if (key === view.key) return;
  view.key = key;
  view.root.classList.toggle('ais-RefinementList--noRefinement', items.length === 0);
  view.list.replaceChildren(
    ...items.map((item) => {
      const entry = element('li', `ais-RefinementList-item${item.isRefined ? ' ais-RefinementList-item--selected' : ''}`);
      const label = element('label', 'ais-RefinementList-label');
      const checkbox = element('input', 'ais-RefinementList-checkbox');
      checkbox.type = 'checkbox';
      checkbox.value = item.value;
      checkbox.checked = item.isRefined;
      label.append(
        checkbox,
        element('span', 'ais-RefinementList-labelText', item.label),
        element('span', 'ais-RefinementList-count', formatCount(item.count)),
      );
      entry.append(label);
      return entry;
    }),
  );
  view.showMore.textContent = isShowingMore ? 'Show less' : 'Show more';
  view.showMore.disabled = !canToggleShowMore;
  view.showMore.classList.toggle('ais-RefinementList-showMore--disabled', !canToggleShowMore);
});
