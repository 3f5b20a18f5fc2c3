/**
 * User Timing marks of the search page's own work, so a keystroke's time can be taken apart (DevTools'
 * Performance panel shows them; scripts/bench/search-page.mjs reads them): when the search client was asked and
 * when it answered, and how long each widget took to prepare (`getRenderState`) and draw (`render`) the results.
 * A mark costs microseconds; the names are the contract with the benchmark.
 */
import type { Widget } from 'instantsearch.js';

/** Marks `search-client:asked` when InstantSearch calls the client and `search-client:answered` when it resolves. */
export function timedSearchClient<Client extends { search(requests: never[]): Promise<unknown> }>(client: Client): Client {
  return {
    ...client,
    async search(requests: never[]) {
      performance.mark('search-client:asked');
      const answer = await client.search(requests);
      performance.mark('search-client:answered');
      return answer;
    },
  };
}

/** The widget with its `getRenderState` and `render` measured as `prepare <label>` and `render <label>` (in place: widgets keep state on `this`). */
export function timedWidget<T extends Widget>(widget: T, label = widget.$$widgetType ?? widget.$$type ?? 'widget'): T {
  const measured = <A extends unknown[], R>(name: string, method: (...args: A) => R) =>
    function (this: unknown, ...args: A): R {
      const start = performance.now();
      try {
        return method.apply(this, args);
      } finally {
        performance.measure(name, { start, end: performance.now() });
      }
    };
  if (widget.getRenderState) widget.getRenderState = measured(`prepare ${label}`, widget.getRenderState);
  if (widget.render) widget.render = measured(`render ${label}`, widget.render);
  return widget;
}
