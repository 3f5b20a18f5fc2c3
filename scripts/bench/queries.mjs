// The query list shared by the HTTP load (autocannon) and the in-process comparison with the peers:
// package names, misspellings, prefixes and a few phrases, rotated across requests.

export const KEYWORD_QUERIES = [
  // package names
  'python3',
  'vim',
  'firefox-esr',
  'nginx',
  'git',
  'openssl',
  'postgresql',
  'emacs',
  'gimp',
  'curl',
  'libreoffice',
  'docker',
  'htop',
  'ffmpeg',
  'inkscape',
  // misspellings
  'pyhton',
  'firefx',
  'ngnix',
  'postgressql',
  'libreofice',
  'emcas',
  'inkscpae',
  'wireshrak',
  'thunderbrid',
  'imagemagik',
  // prefixes (search-as-you-type)
  'pyth',
  'libgt',
  'fire',
  'post',
  'gnom',
  'kde',
  'xfce',
  'rub',
  'haske',
  'golan',
  // phrases
  'text editor',
  'web server',
  'image viewer',
  'game strategy',
  'ssl library',
  'perl module',
  'font',
  'documentation',
  'debian games team',
  'command line tool',
];

export const SUGGEST_QUERIES = [
  'p',
  'py',
  'pyt',
  'lib',
  'fir',
  'ngi',
  'vi',
  'gno',
  'pos',
  'emac',
  'ima',
  'wire',
  'thun',
  'doc',
  'tex',
  'pyht',
  'firef',
  'libre',
  'ffm',
  'ssl',
  'inks',
  'ruby-',
  'golang-g',
  'haskell-',
  'node-',
];

export const SECTIONS = ['libs', 'libdevel', 'python', 'doc', 'perl', 'devel', 'utils', 'net', 'admin', 'games', 'x11', 'science'];

// Keyword + filters as a shop front sends them: a query, the sections it is narrowed to, a size range, a tag subtree.
const FILTERED = [
  { q: 'python', sections: ['python'], size: [0, 1000], tag: 'devel' },
  { q: 'library', sections: ['libs', 'libdevel'], size: [100, 10_000], tag: 'role' },
  { q: 'editor', sections: ['editors', 'text', 'utils'], size: [null, 5000], tag: 'interface' },
  { q: 'game', sections: ['games'], size: [1000, null], tag: 'game' },
  { q: 'server', sections: ['net', 'web', 'admin'], size: [null, null], tag: 'role/program' },
  { q: 'perl module', sections: ['perl'], size: [0, 500], tag: 'implemented-in' },
  { q: 'font', sections: ['fonts'], size: [100, null], tag: 'made-of' },
  { q: 'documentation', sections: ['doc'], size: [1000, 100_000], tag: 'role/documentation' },
  { q: 'x11', sections: ['x11', 'utils'], size: [null, 2000], tag: 'interface/x11' },
  { q: 'rust', sections: ['rust'], size: [0, 200], tag: 'devel' },
  { q: 'imag', sections: ['graphics', 'libs'], size: [null, null], tag: 'works-with' },
  { q: 'scien', sections: ['science', 'math'], size: [10, 100_000], tag: 'field' },
];

/** Keyword + term (section), range (installedSize) and tree (tags) filters, in the SearchQuery form. */
export function filteredRequest(i) {
  const {
    q,
    sections,
    size: [minValue, maxValue],
    tag,
  } = FILTERED[i % FILTERED.length];
  return {
    q,
    rows: 10,
    filters: {
      section: { filterType: 'term', filterDataType: 'string', values: sections },
      installedSize: {
        filterType: 'range',
        filterDataType: 'number',
        ...(minValue === null ? {} : { minValue }),
        ...(maxValue === null ? {} : { maxValue }),
      },
      tags: { filterType: 'tree', filterDataType: 'string', values: [tag] },
    },
  };
}

/** Empty-query browsing: pages 1 to 5, every other request within one section (navigation). */
export function browseRequest(i) {
  return {
    q: '',
    page: 1 + (i % 5),
    rows: 10,
    ...(i % 2 ? { filters: { section: { filterType: 'term', filterDataType: 'string', values: [SECTIONS[i % SECTIONS.length]] } } } : {}),
  };
}

export function keywordRequest(i) {
  return { q: KEYWORD_QUERIES[i % KEYWORD_QUERIES.length], rows: 10 };
}

export function suggestRequest(i) {
  return { q: SUGGEST_QUERIES[i % SUGGEST_QUERIES.length], rows: 10 };
}
