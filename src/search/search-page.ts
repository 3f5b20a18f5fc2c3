/**
 * What the search page (`/ui/{tenant}/{code}`, built from `ui/`) shows for a search app, derived from its
 * schema: the hit's title and text fields, a widget per facet, the sorts. The page reads it from the HTML.
 */
import type { Env } from '../env';
import type { NamedSort, SearchAppField } from './engine/types';
import { SearchAppClient } from './search-app-client';

interface PageApp {
  code: string;
  name: string;
  fields: SearchAppField[];
  sorts: NamedSort[];
}

export interface SearchPageConfig {
  tenant: string;
  app: string;
  title: string;
  /** Highlighted as the hit's heading: the heaviest searched displayed string field. */
  hitTitle?: string;
  /** Snippeted under it: the next heaviest. */
  hitText?: string;
  /** Other displayed fields listed small under each hit. */
  hitDetails: string[];
  /** Refinement lists of string facets, then of the keys of attributes facets (`attributes.priority`). */
  refinementLists: string[];
  /** Hierarchical menus of categories facets. */
  hierarchicalMenus: string[];
  /** Range sliders of long, double and date facets. */
  ranges: string[];
  /** Toggles of boolean facets. */
  toggles: string[];
  /** Sort ids with labels, relevance first (id ''). */
  sorts: Array<{ id: string; label: string }>;
}

/** Levels a hierarchical menu of the page offers (`tags.lvl0` … `tags.lvl2`). */
export const HIERARCHY_LEVELS = 3;

/**
 * The page of a search app. The keys of its attributes facets are in no schema: they are the facet ids
 * `<code>.<key>` its documents have, read from a search of every document.
 */
export async function loadSearchPageConfig(env: Env, tenant: string, app: PageApp): Promise<SearchPageConfig> {
  const attributes = app.fields.filter((f) => f.facet && f.dataType === 'attributes');
  const facetIds = attributes.length
    ? (await new SearchAppClient(env, tenant, app.code).search({ page: 1, rows: 1, facetLimit: 1 })).facets.map((f) => f.id)
    : [];
  return searchPageConfig(tenant, app, facetIds);
}

/** The page of a search app whose index has the facets `facetIds` (attributes facets' keys are taken from them). */
export function searchPageConfig(tenant: string, app: PageApp, facetIds: string[] = []): SearchPageConfig {
  const texts = app.fields
    .filter((f) => f.display && f.dataType === 'string' && f.searchMode !== 'off')
    .sort((a, b) => b.weight - a.weight);
  const [hitTitle, hitText] = texts.map((f) => f.code);
  const facets = (dataTypes: string[]) => app.fields.filter((f) => f.facet && dataTypes.includes(f.dataType)).map((f) => f.code);
  const fieldSorts = app.fields
    .filter((f) => f.sort)
    .flatMap((f) => [
      { id: `${f.code}_asc`, label: `${f.code} ↑` },
      { id: `${f.code}_desc`, label: `${f.code} ↓` },
    ]);
  return {
    tenant,
    app: app.code,
    title: app.name || app.code,
    hitTitle,
    hitText,
    hitDetails: app.fields
      .filter(
        (f) =>
          f.display &&
          f.code !== hitTitle &&
          f.code !== hitText &&
          ['string', 'long', 'double', 'date', 'boolean', 'raw'].includes(f.dataType),
      )
      .map((f) => f.code),
    refinementLists: [
      ...facets(['string']),
      ...facets(['attributes']).flatMap((code) => facetIds.filter((id) => id.startsWith(`${code}.`)).sort()),
    ],
    hierarchicalMenus: facets(['categories']),
    ranges: facets(['long', 'double', 'date']),
    toggles: facets(['boolean']),
    sorts: [{ id: '', label: 'Relevance' }, ...app.sorts.map((s) => ({ id: s.id, label: s.id })), ...fieldSorts],
  };
}
