/**
 * How an index treats each schema field, derived once from the IndexConfig:
 * which fields are tokenized, matched as exact phrases or values, faceted, kept as sort columns.
 */
import { pluralForms, tokenize } from './analysis';
import { ENGLISH_FILLER_WORDS, ENGLISH_KIND_NOUNS, ENGLISH_STOP_WORDS, ENGLISH_SYNONYMS } from './stop-words';
import type { IndexConfig, SearchAppField } from './types';

export const MAX_TEXT_FIELDS = 32;

export interface TextField {
  field: SearchAppField;
  /** Position in postings entries (`ord << 5 | slot`). */
  slot: number;
  weight: number;
  prefix: boolean;
  fuzzy: boolean;
}

export interface ExactField {
  field: SearchAppField;
  weight: number;
  /** `phrase`: the query phrase must stand contiguously in the value; `value`: the query must equal the value. */
  match: 'phrase' | 'value';
}

export interface SortSpec {
  field: SearchAppField;
  direction: 'asc' | 'desc';
}

/** Ranking settings ready for queries: synonyms by their input words, stop words, custom ranking fields. */
export interface RankingPlan {
  synonyms: Array<{ input: string[]; replacements: string[][] }>;
  /**
   * Per first word of an input, the places in `synonyms` of the rules whose input starts with it, ascending: a query
   * reads the rules its words can start instead of passing every rule over every word (a closure per rule and word).
   */
  synonymsByFirstWord: Map<string, number[]>;
  stopWords: Set<string>;
  /** Optional only in a query holding a stop word: the English filler words with the default stop words, else none. */
  fillerWords: Set<string>;
  /** Filler words too in a sentence right after a counted word (`ENGLISH_KIND_NOUNS`): with the default stop words, else none. */
  kindNouns: Set<string>;
  customRanking: Array<{ field: SearchAppField; direction: 'asc' | 'desc' }>;
}

export interface IndexPlan {
  fields: Map<string, SearchAppField>;
  text: TextField[];
  exact: ExactField[];
  /** Fields with `facet: true`: a facet per field, or per key for `attributes`. */
  facets: SearchAppField[];
  /** Fields kept as a number column: numeric types that facet, sort or are searched exactly. */
  numbers: Set<SearchAppField>;
  /** Non-numeric fields kept as a value column for sorting or exact matching. */
  valueColumns: Set<SearchAppField>;
  /** Sort identifier -> what it sorts by. */
  sorts: Map<string, SortSpec>;
  suggestSlots: Set<number>;
  ranking: RankingPlan;
}

const NUMERIC = new Set(['long', 'double', 'date']);
const TOKENIZED = new Set(['string', 'categories', 'attributes']);

export function isNumeric(field: SearchAppField): boolean {
  return NUMERIC.has(field.dataType);
}

export function planIndex(config: IndexConfig): IndexPlan {
  const plan: IndexPlan = {
    fields: new Map(config.fields.map((f) => [f.code, f])),
    text: [],
    exact: [],
    facets: config.fields.filter((f) => f.facet),
    numbers: new Set(),
    valueColumns: new Set(),
    sorts: new Map(),
    suggestSlots: new Set(),
    ranking: {
      synonyms: [],
      synonymsByFirstWord: new Map(),
      stopWords: new Set(),
      fillerWords: new Set(),
      kindNouns: new Set(),
      customRanking: [],
    },
  };
  for (const field of config.fields) {
    const mode = field.searchMode;
    const searched = mode !== 'off';
    const analyzed = TOKENIZED.has(field.dataType) && (mode === 'balanced' || mode === 'fuzzy' || mode === 'custom');
    if ((analyzed || field.suggest) && TOKENIZED.has(field.dataType) && plan.text.length < MAX_TEXT_FIELDS) {
      const slot = plan.text.length;
      plan.text.push({
        field,
        slot,
        // A suggest-only field (search mode off) is indexed for suggestions but never scores.
        weight: analyzed ? field.weight : 0,
        prefix: analyzed,
        fuzzy: analyzed && mode === 'fuzzy',
      });
      if (field.suggest) plan.suggestSlots.add(slot);
    }
    if (searched && !analyzed) {
      // exact mode, or a raw / scalar field searched as a whole value (a suggest slot above only serves suggestions)
      const phraseMatch = field.dataType === 'string' || field.dataType === 'categories' || field.dataType === 'attributes';
      plan.exact.push({ field, weight: field.weight, match: phraseMatch ? 'phrase' : 'value' });
    }
    if (isNumeric(field) && (field.facet || field.sort || searched)) plan.numbers.add(field);
    if (!isNumeric(field) && (field.sort || (searched && !analyzed))) plan.valueColumns.add(field);
    if (field.sort) {
      plan.sorts.set(`${field.code}_asc`, { field, direction: 'asc' });
      plan.sorts.set(`${field.code}_desc`, { field, direction: 'desc' });
    }
  }
  for (const sort of config.sorts) {
    const field = plan.fields.get(sort.field);
    if (!field) continue;
    plan.sorts.set(sort.id, { field, direction: sort.direction });
    if (isNumeric(field)) plan.numbers.add(field);
    else plan.valueColumns.add(field);
  }
  plan.ranking = planRanking(config, plan);
  return plan;
}

function planRanking({ ranking = {} }: IndexConfig, plan: IndexPlan): RankingPlan {
  const synonyms: RankingPlan['synonyms'] = [];
  // The English equivalences go with the English stop words (an app's own stop words replace every English list).
  for (const rule of [...(ranking.stopWords ? [] : ENGLISH_SYNONYMS), ...(ranking.synonyms ?? [])]) {
    const forms = rule.synonyms.map(tokenize).filter((tokens) => tokens.length);
    const inputs = rule.input === undefined ? forms : [tokenize(rule.input)].filter((tokens) => tokens.length);
    for (const input of inputs) {
      const replacements = forms.filter((form) => form.join(' ') !== input.join(' '));
      if (replacements.length) synonyms.push({ input, replacements });
    }
  }
  const synonymsByFirstWord = new Map<string, number[]>();
  synonyms.forEach(({ input }, place) => {
    const starting = synonymsByFirstWord.get(input[0]);
    if (starting) starting.push(place);
    else synonymsByFirstWord.set(input[0], [place]);
  });
  const customRanking: RankingPlan['customRanking'] = [];
  for (const { field: code, direction } of ranking.customRanking ?? []) {
    const field = plan.fields.get(code);
    // Numeric or boolean fields only; others (or a field the schema no longer has) are ignored.
    if (!field || !(isNumeric(field) || field.dataType === 'boolean')) continue;
    if (isNumeric(field)) plan.numbers.add(field);
    else plan.valueColumns.add(field);
    customRanking.push({ field, direction });
  }
  const stopWords = new Set((ranking.stopWords ?? ENGLISH_STOP_WORDS).flatMap(tokenize));
  // An app's own stop words replace the English lists. A filler word's other number fills too (`computers`, `tool`).
  const withNumbers = (words: string[]) => new Set(ranking.stopWords ? [] : words.flatMap((word) => [word, ...pluralForms(word)]));
  const fillerWords = withNumbers(ENGLISH_FILLER_WORDS);
  const kindNouns = withNumbers(ENGLISH_KIND_NOUNS);
  return { synonyms, synonymsByFirstWord, stopWords, fillerWords, kindNouns, customRanking };
}

/** The synonym rules whose input starts with one of `words`, in their order in `synonyms`: those the words can match. */
export function synonymsStartingIn(ranking: RankingPlan, words: readonly string[]): RankingPlan['synonyms'] {
  const places: number[] = [];
  // Distinct words: a rule starts with one word only, so no place is listed twice.
  for (const word of new Set(words)) {
    const starting = ranking.synonymsByFirstWord.get(word);
    if (starting) places.push(...starting);
  }
  return places.sort((a, b) => a - b).map((place) => ranking.synonyms[place]);
}
