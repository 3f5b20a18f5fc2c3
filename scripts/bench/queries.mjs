// The query list shared by the HTTP load (autocannon) and the in-process comparison with the peers:
// package names, misspellings, prefixes and a few phrases, rotated across requests.

export const KEYWORD_QUERIES = [
  // package names
  'python3', 'vim', 'firefox-esr', 'nginx', 'git', 'openssl', 'postgresql', 'emacs', 'gimp', 'curl',
  'libreoffice', 'docker', 'htop', 'ffmpeg', 'inkscape',
  // misspellings
  'pyhton', 'firefx', 'ngnix', 'postgressql', 'libreofice', 'emcas', 'inkscpae', 'wireshrak', 'thunderbrid', 'imagemagik',
  // prefixes (search-as-you-type)
  'pyth', 'libgt', 'fire', 'post', 'gnom', 'kde', 'xfce', 'rub', 'haske', 'golan',
  // phrases
  'text editor', 'web server', 'image viewer', 'game strategy', 'ssl library', 'perl module', 'font', 'documentation',
  'debian games team', 'command line tool',
];

export const SUGGEST_QUERIES = [
  'p', 'py', 'pyt', 'lib', 'fir', 'ngi', 'vi', 'gno', 'pos', 'emac', 'ima', 'wire', 'thun', 'doc', 'tex',
  'pyht', 'firef', 'libre', 'ffm', 'ssl', 'inks', 'ruby-', 'golang-g', 'haskell-', 'node-',
];

export const SECTIONS = ['libs', 'libdevel', 'python', 'doc', 'perl', 'devel', 'utils', 'net', 'admin', 'games', 'x11', 'science'];
export const TREE_TAGS = ['interface', 'role/program', 'implemented-in', 'use', 'devel', 'interface/x11', 'works-with', 'uitoolkit'];
export const SIZE_RANGES = [[0, 100], [100, 1000], [1000, 10_000], [10_000, null], [null, 500]];

/** Keyword + term (section), range (installedSize) and tree (tags) filters, in the SearchQuery form. */
export function filteredRequest(i) {
  const [minValue, maxValue] = SIZE_RANGES[i % SIZE_RANGES.length];
  return {
    q: KEYWORD_QUERIES[i % KEYWORD_QUERIES.length],
    rows: 10,
    filters: {
      section: { filterType: 'term', filterDataType: 'string', values: [SECTIONS[i % SECTIONS.length], SECTIONS[(i + 3) % SECTIONS.length]] },
      installedSize: {
        filterType: 'range',
        filterDataType: 'number',
        ...(minValue === null ? {} : { minValue }),
        ...(maxValue === null ? {} : { maxValue }),
      },
      tags: { filterType: 'tree', filterDataType: 'string', values: [TREE_TAGS[i % TREE_TAGS.length]] },
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
