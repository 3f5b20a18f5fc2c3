/**
 * The hierarchical menu drawn with the DOM directly, in the markup and class names of InstantSearch's own
 * (`ais-HierarchicalMenu-*`): the stock widget builds a URL per shown category on every keystroke (`createURL`
 * recomputes the whole page state for each); here a link gets its URL when the pointer or focus reaches it, so
 * opening it in a new tab still works, and a plain click refines in place. Redrawn only when the shown categories,
 * their counts or the refinement changed.
 */
import { connectHierarchicalMenu } from 'instantsearch.js/es/connectors';
import { element, formatCount } from './dom';

interface MenuItem {
  value: string;
  label: string;
  count: number;
  isRefined: boolean;
  data: MenuItem[] | null;
}

interface Drawn {
  key: string;
  root: HTMLElement;
  showMore: HTMLButtonElement;
  /** The connector's latest callbacks. */
  refine: (value: string) => void;
  createURL: (value: string) => string;
  toggleShowMore: () => void;
}
const drawn = new WeakMap<HTMLElement, Drawn>();

const CLASS = 'ais-HierarchicalMenu';

function list(items: MenuItem[], depth: number): HTMLUListElement {
  const className = `${CLASS}-list${depth ? ` ${CLASS}-list--child` : ''} ${CLASS}-list--lvl${depth}`;
  const shown = element('ul', className);
  shown.append(
    ...items.map((item) => {
      const parent = Boolean(item.data?.length);
      const entry = element(
        'li',
        `${CLASS}-item${item.isRefined ? ` ${CLASS}-item--selected` : ''}${parent ? ` ${CLASS}-item--parent` : ''}`,
      );
      const link = element('a', `${CLASS}-link${item.isRefined ? ` ${CLASS}-link--selected` : ''}`);
      link.dataset.value = item.value;
      link.tabIndex = 0; // focusable before it has an href
      link.append(element('span', `${CLASS}-label`, item.label), element('span', `${CLASS}-count`, formatCount(item.count)));
      const box = document.createElement('div');
      box.append(link);
      entry.append(box);
      if (parent && item.data) entry.append(list(item.data, depth + 1));
      return entry;
    }),
  );
  return shown;
}

/** The link an event reached, when it is one of this menu's category links. */
const linkOf = (event: Event) => (event.target as Element).closest<HTMLAnchorElement>(`a.${CLASS}-link`);

/** `hierarchicalMenu` with `container` (an element) and the connector's parameters (`attributes`, `separator`, `limit`, …). */
export const hierarchicalMenu = connectHierarchicalMenu<{ container: HTMLElement }>((options, isFirstRender) => {
  const { items, refine, createURL, canToggleShowMore, isShowingMore, toggleShowMore, widgetParams } = options;
  const { container } = widgetParams;
  let view = drawn.get(container);
  if (isFirstRender || !view) {
    const root = element('div', CLASS);
    const showMore = element('button', `${CLASS}-showMore`);
    const created: Drawn = { key: '', root, showMore, refine, createURL, toggleShowMore };
    const withUrl = (event: Event) => {
      const link = linkOf(event);
      if (link?.dataset.value !== undefined && !link.hasAttribute('href')) link.href = created.createURL(link.dataset.value);
    };
    root.addEventListener('pointerover', withUrl);
    root.addEventListener('focusin', withUrl);
    root.addEventListener('click', (event) => {
      const link = linkOf(event);
      // A click with a modifier key (or another button) opens the link as the browser does.
      if (link?.dataset.value === undefined || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0)
        return;
      event.preventDefault();
      created.refine(link.dataset.value);
    });
    showMore.addEventListener('click', () => created.toggleShowMore());
    container.replaceChildren(root);
    drawn.set(container, (view = created));
  }
  Object.assign(view, { refine, createURL, toggleShowMore });
  const key = JSON.stringify([items, canToggleShowMore, isShowingMore]);
  if (key === view.key) return;
  view.key = key;
  view.root.classList.toggle(`${CLASS}--noRefinement`, items.length === 0);
  view.showMore.textContent = isShowingMore ? 'Show less' : 'Show more';
  view.showMore.disabled = !canToggleShowMore;
  view.showMore.classList.toggle(`${CLASS}-showMore--disabled`, !canToggleShowMore);
  view.root.replaceChildren(list(items as MenuItem[], 0), ...(widgetParams.showMore ? [view.showMore] : []));
});
