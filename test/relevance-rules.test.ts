// Each ranking rule of issue 11 pinned on a small fixture (the whole catalogue is scored by `npm run relevance`).
import { describe, expect, it } from 'vitest';
import { sameWord } from '../src/search/engine/analysis';
import { SearchIndex } from '../src/search/engine/index';
import { planIndex, synonymsStartingIn } from '../src/search/engine/plan';
import type { IndexConfig, RankingSettings } from '../src/search/engine/types';
import { field } from './fixtures/field';

const fields = [
  field('name', 'string', { searchMode: 'fuzzy', weight: 10 }),
  field('description', 'string', { weight: 3 }),
  field('popularity', 'long', { searchMode: 'off' }),
  field('featured', 'boolean', { searchMode: 'off' }),
];
const packages: Array<[string, string, number?, boolean?]> = [
  ['wireshark', 'network traffic analyzer'],
  ['wire', 'a wire protocol library'],
  ['shark', 'shark game'],
  ['speedtest-cli', 'command line interface for testing internet bandwidth'],
  ['network-manager', 'network management framework'],
  ['cockpit-networkmanager', 'cockpit plugin for networkmanager'],
  ['rhythmbox', 'music player and organizer'],
  ['gimp', 'GNU Image Manipulation Program'],
  ['gimp-plugin-registry', 'repository of optional extensions for gimp'],
  ['g++', 'GNU C++ compiler'],
  ['g', 'a tiny tool'],
  ['perl', 'Practical Extraction and Report Language'],
  ['eperl', 'embedded perl language'],
  ['python3', 'interactive high-level object-oriented language'],
  ['python3-requests', 'elegant and simple HTTP library for python3'],
  ['kded5', 'KDE daemon'],
  ['kde-full', 'complete KDE desktop'],
  ['television-guide', 'program guide', 5, false],
  ['tv-remote', 'remote control', 50, false],
  ['tv-tuner', 'remote control', 10, true],
  ['simplescreenrecorder', 'screen recorder'],
  ['xsane', 'document scanner frontend'],
  ['tuxtype', 'typing tutor'],
  ['stype', 'types for ruby'],
];

function index(ranking?: RankingSettings): SearchIndex {
  const config: IndexConfig = { fields, sorts: [], ranking };
  const built = new SearchIndex(config);
  for (const [name, description, popularity, featured] of packages) built.add(name, { name, description, popularity, featured });
  return built;
}
const plain = index();
const top = (q: string, engine = plain) => engine.search({ q, page: 1, rows: 5 }).hits.map((hit) => hit.id);

describe('relevance rules', () => {
  it('counts a swap of two adjacent letters as one typo', () => {
    expect(top('wrieshark')[0]).toBe('wireshark');
    expect(top('pelr')[0]).toBe('perl');
  });
  it('ranks a typo term longer than the word typed above a shorter one as many typos away', () => {
    // `tilx` is one typo from both: `tilix` with a letter left out, `tix` with one typed too many.
    const typed = new SearchIndex({ fields, sorts: [] });
    typed.add('tix', { name: 'tix', description: 'widget library' });
    typed.add('tilix', { name: 'tilix', description: 'tiling terminal emulator for the desktop' });
    expect(top('tilx', typed)).toEqual(['tilix', 'tix']);
  });
  it('joins adjacent query words into an indexed word, the literal words still found', () => {
    expect(top('wire shark')[0]).toBe('wireshark');
    expect(top('wire shark')).toEqual(expect.arrayContaining(['wire', 'shark']));
  });
  it('splits a glued query word into adjacent indexed words, above names that only contain it', () => {
    expect(top('speedtestcli')[0]).toBe('speedtest-cli');
    expect(top('networkmanager')[0]).toBe('network-manager');
  });
  it('splits a glued query word after a one-letter first part, not before a one-letter last part', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('calibre', { name: 'calibre', description: 'powerful e-book manager' });
    engine.add('sylpheed', { name: 'sylpheed', description: 'light e-mail client' });
    engine.add('libc', { name: 'libc', description: 'the linux c library' });
    engine.add('album', { name: 'album', description: 'photo collection' });
    expect(top('ebook', engine)).toEqual(['calibre']);
    expect(top('email client', engine)).toEqual(['sylpheed']);
    expect(top('linuxc collection', engine)).toEqual(['album']);
  });
  it('splits a glued word indexed nowhere into three adjacent indexed words when no two do', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('cool-retro-term', { name: 'cool-retro-term', description: 'terminal emulator which mimics old screens' });
    engine.add('retro-cool', { name: 'retro-cool', description: 'a term for cool retro things' });
    // The three words in another order, or apart, are no match.
    expect(top('coolretroterm', engine)).toEqual(['cool-retro-term']);
  });
  it('finds the singular for a plural, and names with symbols whole', () => {
    expect(top('music players')[0]).toBe('rhythmbox');
    expect(top('g++')[0]).toBe('g++');
  });
  it('ranks the field that equals the query, then one that starts with it, above typos and longer names', () => {
    expect(top('perl')[0]).toBe('perl');
    expect(top('gimp').slice(0, 2)).toEqual(['gimp', 'gimp-plugin-registry']);
    expect(top('pyth')[0]).toBe('python3');
    // A word as typed before a completion: `kde` starts `kde-full`, only completes `kded5`.
    expect(top('kde')[0]).toBe('kde-full');
  });
  it('takes a field to equal the query only where the query words reach its end', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('term', { name: 'term', description: 'terminal' });
    // `tern` is one typo from `term` but stands where no query word does: the name starts with `term`, not equals it.
    engine.add('term-tern', { name: 'term-tern', description: 'term term term' });
    expect(top('term', engine)).toEqual(['term', 'term-tern']);
  });
  it('takes how the word at its query position matched for exactness, not the word elsewhere in the field', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('xscreensaver', { name: 'xscreensaver', description: 'screensaver daemon' });
    engine.add('xscreensaver-screensaver-bsod', { name: 'xscreensaver-screensaver-bsod', description: 'blue screen module' });
    // The module's name starts with `xscreensaver`, one typo from the query: `screensaver` later in it is not the start.
    expect(top('screensaver', engine)).toEqual(['xscreensaver', 'xscreensaver-screensaver-bsod']);
  });
  it('does not take a name starting with a namespace (more than 50 names start so) as a name being typed', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (let i = 0; i < 51; i++) engine.add(`node-m${i}`, { name: `node-m${i}`, description: 'a module' });
    engine.add('nodejs', { name: 'nodejs', description: 'runtime' });
    expect(top('node', engine)[0]).toBe('nodejs');
    // Fifty with their head are a family: a name starting with `node` is being typed.
    const family = new SearchIndex({ fields, sorts: [] });
    for (let i = 0; i < 50; i++) family.add(`node-m${i}`, { name: `node-m${i}`, description: 'a module' });
    family.add('nodejs', { name: 'nodejs', description: 'runtime' });
    family.add('node', { name: 'node', description: 'the head' });
    expect(top('node', family).slice(0, 2)).toEqual(['node', 'node-m0']);
  });
  it('ranks a name going on past a namespace as a part, unless the query names the namespace', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (let i = 0; i < 51; i++) engine.add(`node-m${i}`, { name: `node-m${i}`, description: 'a module' });
    // Fillers, so that `nod…` begins no more than a fifth of the names (a glued namespace, a part already).
    for (let i = 0; i < 250; i++) engine.add(`other${i}`, { name: `other${i}`, description: 'something else' });
    engine.add('node-emoji', { name: 'node-emoji', description: 'emoji data' });
    engine.add('smiley', { name: 'smiley', description: 'a small desktop tool to pick and insert an emoji' });
    engine.add('runner', { name: 'runner', description: 'a tool that runs many kinds of scripts, also for node' });
    // `node-emoji` holds the word in its name as well: the binding would come first as a name of its own.
    expect(top('emoji', engine)).toEqual(['smiley', 'node-emoji']);
    // Asked for by the namespace's word, its names are no parts: they come before a description holding it.
    expect(top('node', engine)).not.toContain('runner');
  });
  it('does not take a name starting with a family without a head as a name being typed', () => {
    const printers = (drivers: number) => {
      const engine = new SearchIndex({ fields, sorts: [] });
      for (const model of ['aa', 'bb', 'cc', 'dd', 'ee', 'ff'].slice(0, drivers))
        engine.add(`printer-driver-${model}`, { name: `printer-driver-${model}`, description: 'printer driver' });
      engine.add('system-config-printer', { name: 'system-config-printer', description: 'configure printers' });
      return engine;
    };
    // Six names begin with `printer`, none is `printer`: they name its drivers.
    expect(top('printer', printers(6))[0]).toBe('system-config-printer');
    // Five are not yet a family: a name starting with `printer` is being typed.
    expect(top('printer', printers(5))[0]).toBe('printer-driver-aa');
  });
  it('does not take a name going on past another name that starts with the query as a name being typed', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('bible-kjv', { name: 'bible-kjv', description: 'King James Version reading program' });
    engine.add('bible-kjv-text', { name: 'bible-kjv-text', description: 'King James Version text' });
    engine.add('bibletime', { name: 'bibletime', description: 'bible study tool' });
    engine.add('docker', { name: 'docker', description: 'dock application' });
    engine.add('docker.io', { name: 'docker.io', description: 'container runtime' });
    engine.add('dockerfile-lint', { name: 'dockerfile-lint', description: 'checks docker files' });
    // `bible-kjv-text` is a part of `bible-kjv`, which starts with `bible` itself: the part is no name being typed.
    expect(top('bible', engine)).toEqual(['bible-kjv', 'bibletime', 'bible-kjv-text']);
    // A part of the name typed itself (`docker.io` of `docker`) still starts with it.
    expect(top('docker', engine)).toEqual(['docker', 'docker.io', 'dockerfile-lint']);
  });
  it('does not take a name starting with a word that is a topic of many documents as a name being typed', () => {
    const java = (mentions: number) => {
      const engine = new SearchIndex({ fields, sorts: [] });
      engine.add('java-common', { name: 'java-common', description: 'base files for runtimes' });
      engine.add('java-policy', { name: 'java-policy', description: 'packaging policy' });
      engine.add('default-jdk', { name: 'default-jdk', description: 'standard java development kit' });
      for (let i = 0; i < mentions; i++)
        engine.add(`tool${i}`, { name: `tool${i}`, description: `a tool of many words number ${i} written in java` });
      return engine;
    };
    // 2 titles start with `java`, 153 documents hold it (more than 50 per title, plus one): Java is what is asked.
    expect(top('java', java(150))[0]).toBe('default-jdk');
    // 103 documents: a title starting with `java` is still the name being typed.
    expect(['java-common', 'java-policy']).toContain(top('java', java(100))[0]);
  });
  it('does not take a title equal to the singular of an indexed one-word query for the name typed (`note` for `notes`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('note', { name: 'note', description: 'show a message on the screen' });
    engine.add('gnote', { name: 'gnote', description: 'notes manager for the desktop' });
    engine.add('tomboy', { name: 'tomboy', description: 'wiki and notes' });
    for (let i = 0; i < 10; i++) engine.add(`tool${i}`, { name: `tool${i}`, description: `an note tool ${i}` });
    // `note` still matches (its score counts), but not as the name typed.
    expect(['gnote', 'tomboy']).toContain(top('notes', engine)[0]);
    expect(top('notes', engine)).toContain('note');
    expect(top('note', engine)[0]).toBe('note');
  });
  it('reads no two-letter singular off a three-letter word (`fps` is an initialism, not the plural of `fp`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('fp-compiler', { name: 'fp-compiler', description: 'Free Pascal compiler' });
    engine.add('fp-ide', { name: 'fp-ide', description: 'Free Pascal IDE' });
    engine.add('mangohud', { name: 'mangohud', description: 'overlay for monitoring fps, temperatures and load' });
    engine.add('map', { name: 'map', description: 'draw a plan' });
    expect(top('fps counter', engine)).toEqual(['mangohud']);
    // A word of four letters still reads its singular.
    expect(top('maps', engine)).toEqual(['map']);
  });
  it('finds other forms of a word: verb, -ing, -er and -ment forms share a stem', () => {
    expect(top('record screen')[0]).toBe('simplescreenrecorder');
    expect(top('scan document')[0]).toBe('xsane');
    expect(top('typing')).toContain('tuxtype');
    expect(top('network manager')[0]).toBe('network-manager');
    expect(top('networkmanager management')[0]).toBe('network-manager');
  });
  it('finds other forms of a three-letter word (`rip` ~ `ripper`, `tag` ~ `tagging`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('cd-discid', { name: 'cd-discid', description: 'read the identifier of a cd' });
    engine.add('asunder', { name: 'asunder', description: 'graphical audio cd ripper' });
    engine.add('easytag', { name: 'easytag', description: 'tagging of audio files' });
    expect(top('rip a cd', engine)[0]).toBe('asunder');
    expect(top('tag audio', engine)[0]).toBe('easytag');
  });
  it('takes no -ed form of a verb for a form of its agent noun (`printer` is no `printed`), its -ing form still one', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('pcb', { name: 'pcb', description: 'printed circuit board design program' });
    engine.add('cups', { name: 'cups', description: 'common unix printing system' });
    expect(top('printer', engine)).toEqual(['cups']);
    expect(sameWord('printer', 'printed')).toBe(false);
    expect(sameWord('recorded', 'recorders')).toBe(false);
    expect(sameWord('printer', 'printing')).toBe(true);
    expect(sameWord('print', 'printed')).toBe(true);
  });
  it('takes no word for another form of one Porter alone relates to it (`animation`, `animals`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('animals', { name: 'animals', description: 'guessing game' });
    engine.add('dirty-equals', { name: 'dirty-equals', description: 'comparisons' });
    engine.add('synfig', { name: 'synfig', description: 'vector animation studio' });
    engine.add('pulseeq', { name: 'pulseeq', description: 'audio equalizer' });
    expect(top('animation', engine)).toEqual(['synfig']);
    expect(top('equalizer', engine)).toEqual(['pulseeq']);
    expect(sameWord('animation', 'animals')).toBe(false);
    expect(sameWord('assembler', 'assembly')).toBe(false);
    for (const [a, b] of [
      ['recorder', 'recording'],
      ['typing', 'type'],
      ['modeling', 'modeller'],
      ['installation', 'install'],
      ['management', 'manager'],
    ])
      expect(sameWord(a, b)).toBe(true);
  });
  it('finds an adjective in -ical as a form of its noun in -ic or -ics (`statistical` ~ `statistics`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['pspp', 'statistical analysis tool'],
      ['collectd', 'statistics collection daemon'],
      ['animal', 'farm animals'],
    ])
      engine.add(name, { name, description });
    expect(top('statistics', engine)).toEqual(['collectd', 'pspp']);
    expect(sameWord('musical', 'music')).toBe(true);
    expect(sameWord('graphical', 'graphics')).toBe(true);
    // -al alone stays apart: `animal` is no form of `animation`.
    expect(sameWord('animal', 'animation')).toBe(false);
  });
  it('finds an adjective in -ular as a form of its noun in -cule, -dule, -nule or -sule (`molecular` ~ `molecule`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('jmol', { name: 'jmol', description: 'viewer of molecular structures and their models' });
    engine.add('okular', { name: 'okular', description: 'document viewer' });
    expect(top('molecule viewer', engine)).toEqual(['jmol', 'okular']);
    expect(sameWord('modular', 'modules')).toBe(true);
    // After other letters the -ular word has no such noun: `popular` is no form of `population`.
    expect(sameWord('popular', 'population')).toBe(false);
    expect(sameWord('regular', 'regulation')).toBe(false);
  });
  it('finds a word in its other spelling (British -ise, -yse and -our) as another form of it', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('gource', { name: 'gource', description: 'source control visualisation' });
    engine.add('spek', { name: 'spek', description: 'acoustic spectrum analyser' });
    engine.add('hscolour', { name: 'hscolour', description: 'colourise haskell code' });
    engine.add('gpick', { name: 'gpick', description: 'advanced color picker' });
    expect(top('visualization', engine)).toEqual(['gource']);
    expect(top('spectrum analyzer', engine)).toEqual(['spek']);
    expect(top('colorize code', engine)[0]).toBe('hscolour');
    expect(top('colour picker', engine)[0]).toBe('gpick');
    // Only past three letters: `hour`, `tour` and `rise` keep their spelling.
    expect(sameWord('tour', 'tor')).toBe(false);
    expect(sameWord('rise', 'rize')).toBe(false);
  });
  it('finds the noun of a Latin verb whose stem changes as another form of the verb (`conversion` ~ `convert`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('winff', { name: 'winff', description: 'video conversion frontend' });
    engine.add('dunst', { name: 'dunst', description: 'lightweight notification daemon' });
    engine.add('wireshark', { name: 'wireshark', description: 'network traffic analysis' });
    engine.add('vlc', { name: 'vlc', description: 'video player' });
    expect(top('convert video', engine)[0]).toBe('winff');
    expect(top('notify', engine)).toEqual(['dunst']);
    expect(top('traffic analyzer', engine)).toEqual(['wireshark']);
    for (const [a, b] of [
      ['converter', 'conversion'],
      ['identify', 'identification'],
      ['synthesizer', 'synthesis'],
      ['describe', 'descriptions'],
      ['solver', 'solution'],
    ])
      expect(sameWord(a, b)).toBe(true);
    // Only with three letters before `-ersion`: `version` is no form of a verb.
    expect(sameWord('version', 'vert')).toBe(false);
  });
  it('finds a verb in -ate and its -ation noun, and a noun in -ency and its verb, as forms of one another', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('xdotool', { name: 'xdotool', description: 'command-line X11 automation tool' });
    engine.add('debtree', { name: 'debtree', description: 'package dependency graph generator' });
    engine.add('xterm', { name: 'xterm', description: 'terminal emulator' });
    expect(top('automate my desktop', engine)).toEqual(['xdotool']);
    expect(top('graph what a package depends on', engine)[0]).toBe('debtree');
    for (const [a, b] of [
      ['translate', 'translation'],
      ['calculate', 'calculations'],
      ['separate', 'separation'],
      ['dependencies', 'depend'],
    ])
      expect(sameWord(a, b)).toBe(true);
    // The -ate stem keeps five letters, as the -ation one: `rotate` is no form of `rot`, nor `state` of `station`.
    expect(sameWord('rotate', 'rot')).toBe(false);
    expect(sameWord('state', 'station')).toBe(false);
    expect(sameWord('general', 'generate')).toBe(false);
  });
  it('finds an -ytic word as a form of its -ysis noun, and a learned -ic or -ical adjective as one of its -y noun', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('webalizer', { name: 'webalizer', description: 'web server log analysis program' });
    engine.add('gnupg', { name: 'gnupg', description: 'cryptographic tools' });
    engine.add('gramps', { name: 'gramps', description: 'genealogical research program' });
    expect(top('web analytics', engine)).toEqual(['webalizer']);
    expect(top('cryptography', engine)).toEqual(['gnupg']);
    expect(top('genealogy', engine)).toEqual(['gramps']);
    for (const [a, b] of [
      ['analytical', 'analyze'],
      ['astronomical', 'astronomy'],
      ['economics', 'economy'],
      ['geometric', 'geometry'],
    ])
      expect(sameWord(a, b)).toBe(true);
    // Only past two letters before the learned root: `logic` and `graphic` keep their own words.
    expect(sameWord('logic', 'logy')).toBe(false);
    expect(sameWord('automatic', 'automaty')).toBe(false);
  });
  it('takes no -ation noun for a form of a plural (`documents` is no form of `documentation`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('spell-doc', { name: 'spell-doc', description: 'documentation of a spell checker' });
    engine.add('aspell', { name: 'aspell', description: 'spell checker' });
    expect(top('spell checker for my documents', engine)[0]).toBe('aspell');
    expect(sameWord('documents', 'documentation')).toBe(false);
    expect(sameWord('installations', 'install')).toBe(true);
    expect(sameWord('install', 'installation')).toBe(true);
  });
  it('takes no plural of an -ed form for a form of the word (`apacheds` is no form of `apache`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('apacheds', { name: 'apacheds', description: 'directory server' });
    engine.add('apache2', { name: 'apache2', description: 'http server' });
    // Both complete `apache`; a form of the word would match it whole and go first.
    expect(top('apache', engine)).toEqual(['apache2', 'apacheds']);
    expect(sameWord('apacheds', 'apache')).toBe(false);
    expect(sameWord('connections', 'connect')).toBe(true);
  });
  it('ranks the word as typed above its other forms', () => {
    expect(top('type')).toEqual(['stype', 'tuxtype']);
  });
  it('counts another form of a word as the word for exactness, the score weighing the documents', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    // `modeling` as typed only in a long description of a data package; `modeller` in a short one.
    engine.add('occt-modeling-data', {
      name: 'occt-modeling-data',
      description: 'data structures of geometric primitives for a 3d modeling kernel, with tables, meshes and curves',
    });
    engine.add('blend', { name: 'blend', description: 'versatile 3d modeller' });
    expect(top('3d modeling', engine)).toEqual(['blend', 'occt-modeling-data']);
  });
  it('treats the function words of a question as stop words, and words with content as words', () => {
    expect(top('how do I record my screen')[0]).toBe('simplescreenrecorder');
    expect(top('I want a program to scan documents')[0]).toBe('xsane');
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('diff-cover', { name: 'diff-cover', description: 'coverage of the lines a diff changes' });
    engine.add('meld', { name: 'meld', description: 'graphical tool to diff and merge files' });
    // `tool` is no stop word: the document matching both words comes before the name matching one.
    expect(top('diff tool', engine)).toEqual(['meld', 'diff-cover']);
  });
  it('treats the prepositions, conjunctions and quantifiers of the Snowball list as stop words', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('iftop', { name: 'iftop', description: 'monitor the network bandwidth of servers' });
    engine.add('relay', { name: 'relay', description: 'copying files while moving them between servers' });
    // `while` and `between` tell nothing: the document matching the words with content comes first.
    expect(top('monitor bandwidth while copying between servers', engine)[0]).toBe('iftop');
  });
  it('glues a stop word to a counted word only when they are the whole query', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('acd', { name: 'acd', description: 'data definitions' });
    engine.add('xfburn', { name: 'xfburn', description: 'burns a cd' });
    engine.add('onboard', { name: 'onboard', description: 'keyboard on the screen' });
    engine.add('todo', { name: 'todo', description: 'hierarchical lists' });
    // `acd` is not the word `cd`: glued inside a longer query, `a cd` would match it as `cd`.
    expect(top('burn a cd', engine)).toEqual(['xfburn']);
    expect(top('a cd', engine)[0]).toBe('acd');
    expect(top('on board', engine)[0]).toBe('onboard');
    // Stop words glue among themselves.
    expect(top('things to do', engine)).toEqual(['todo']);
  });
  it('completes a short last word where it follows the word before, beyond its most frequent completions', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('sonic-pi', { name: 'sonic-pi', description: 'live coding' });
    engine.add('sonic', { name: 'sonic', description: 'speech speed changer' });
    engine.add('raspberry-pi', { name: 'raspberry-pi', description: 'board support' });
    // 70 words starting with `p`, each in three documents: `pi` (in two) is not among the 64 kept completions of `p`.
    for (let i = 0; i < 210; i++) {
      const k = Math.floor(i / 3);
      const word = `p${String.fromCharCode(97 + (k % 26))}${String.fromCharCode(97 + Math.floor(k / 26))}x`;
      engine.add(`filler-${i}`, { name: `filler-${i}`, description: `${word} ${word}` });
    }
    expect(top('sonic p', engine)[0]).toBe('sonic-pi');
    // Only where it follows `sonic`: `pi` elsewhere is no completion of this query.
    expect(top('sonic p', engine)).not.toContain('raspberry-pi');
  });
  it('takes a stop word glued to the first counted word as the start of the query, for attribute exactness', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('whowatch', { name: 'whowatch', description: 'user logins monitoring tool' });
    engine.add('watcher-api', { name: 'watcher-api', description: 'optimization service' });
    // `watcher` is a form of `watch` starting its name; `whowatch` equals the whole query glued.
    expect(top('who watch', engine)[0]).toBe('whowatch');
  });
  it('treats the filler words of a question as optional, and as words in a query without stop words', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('fotoxx', { name: 'fotoxx', description: 'photo program with an editor' });
    engine.add('krita', { name: 'krita', description: 'edit photos' });
    // `program` fills the question: both match `edit` and `photos`, and the words as typed come first.
    expect(top('program to edit photos', engine)[0]).toBe('krita');
    // Without a stop word the query is keywords: `program` counts.
    expect(top('program edit photos', engine)[0]).toBe('fotoxx');
  });
  it('treats indefinite pronouns, `every` and `without` as stop words', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('podman', { name: 'podman', description: 'run containers as a user, not root' });
    engine.add('shotwell', { name: 'shotwell', description: 'share photos' });
    engine.add('offline', { name: 'offline', description: 'works without a network' });
    engine.add('greeter', { name: 'greeter', description: 'says hello to everyone, every hour' });
    // Alone they match nothing: what is run and shared decides.
    expect(top('run containers without root', engine)).toEqual(['podman']);
    expect(top('share every photo with everyone', engine)).toEqual(['shotwell']);
  });
  it('treats the other number of a filler word as a filler word too (`computers`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('librecad-data', { name: 'librecad-data', description: 'files shared between computers' });
    engine.add('samba', { name: 'samba', description: 'windows file server' });
    // `computer` fills a question, and so does `computers`: `windows` and `files` decide.
    expect(top('share files with windows computers', engine)[0]).toBe('samba');
    expect(top('share files windows computers', engine)[0]).toBe('librecad-data');
  });
  it('treats the verbs `see`, `show` and `keep` of a request as filler words', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('tty-clock', { name: 'tty-clock', description: 'big clock for the terminal' });
    engine.add('showterm', { name: 'showterm', description: 'show terminal sessions' });
    engine.add('devtodo', { name: 'devtodo', description: 'list of things to do' });
    engine.add('keepass', { name: 'keepass', description: 'keep a list of passwords' });
    // What is shown or kept decides, not the verb.
    expect(top('show a big clock in the terminal', engine)[0]).toBe('tty-clock');
    expect(top('keep a list of things to do', engine)[0]).toBe('devtodo');
    // Without a stop word the query is keywords: `show` counts.
    expect(top('show terminal clock', engine)[0]).toBe('showterm');
  });
  it('treats the verb `play` of a request as a filler word (`play old dos games`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('dosbox', { name: 'dosbox', description: 'x86 emulator with DOS' });
    engine.add('oldplayer', { name: 'oldplayer', description: 'player of old music' });
    // `play` (completed to `player`) and `old` matched beside `dos` alone: what is played decides, not the verb.
    expect(top('how to play old dos games', engine)[0]).toBe('dosbox');
    expect(top('how to plays old dos games', engine)[0]).toBe('dosbox');
    // Without a stop word the query is keywords: `play` counts.
    expect(top('play old dos', engine)[0]).toBe('oldplayer');
  });
  it('treats a count of things (`two`) and the speed words descriptions praise with (`fast`, `quick`) as filler words', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['diffpdf', 'compare two PDF files'],
      ['pdfarranger', 'merge, split and re-arrange pages from PDF documents'],
      ['fastpipe', 'fast data pipe'],
      ['pv', 'meter and limit data passing through a pipe'],
    ])
      engine.add(name, { name, description });
    // How many things and how fast say nothing of what is asked for: merging and limiting decide.
    expect(top('how do I merge two pdf files', engine)[0]).toBe('pdfarranger');
    expect(top('limit how fast data goes through a pipe', engine)[0]).toBe('pv');
    // Without a stop word the query is keywords: `two` counts.
    expect(top('two pdf', engine)[0]).toBe('diffpdf');
  });
  it('treats the verb `set` of a request as a filler word (`set up my tablet`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('autopoint', { name: 'autopoint', description: 'tool for setting up gettext' });
    engine.add('wacomcpl', { name: 'wacomcpl', description: 'Wacom tablet' });
    // `set` and `up` matched twice beside `tablet` once: `set` fills the request, `tablet` says what it is about.
    expect(top('set up my tablet', engine)[0]).toBe('wacomcpl');
    expect(top('set up tablet', engine)[0]).toBe('autopoint');
  });
  it('treats the particles of phrasal verbs as filler words that glue to the word before them', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['up', "shoot 'em up"],
      ['mdadm', 'software raid tool'],
      ['deja-dup', 'backup utility'],
      ['kodi', 'home theatre'],
    ])
      engine.add(name, { name, description });
    // `up` says how `set` acts, not what is set up: a document holding it alone is no answer to the question.
    expect(top('how do I set up raid', engine)).toEqual(['mdadm']);
    expect(top('up raid', engine)).toContain('up');
    // Optional, `up` still glues to `back` before it (`backup`), inside the question as at its start.
    expect(top('back up my home folder', engine)).toContain('deja-dup');
    expect(top('I need to back up my home folder', engine)).toContain('deja-dup');
  });
  it("completes every counted word of a sentence, as Algolia's prefixAll, and only the last word of keywords", () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['saytime', 'speaks the clock aloud'],
      ['clock', 'prints the hour'],
    ])
      engine.add(name, { name, description });
    // `say` begins the name `saytime`: a word of a question may be the start of a name.
    expect(top('say what hour it is', engine)).toEqual(expect.arrayContaining(['saytime', 'clock']));
    // Keywords are typed whole but for the last: `say` finds nothing, `hour` finds `clock`.
    expect(top('say hour', engine)).toEqual(['clock']);
  });
  it('counts one word fewer for a part (a library, add-on or data) in a sentence, from two words matched', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['libquick-notebook0', 'quick notebook library'],
      ['gnote', 'desktop note'],
    ])
      engine.add(name, { name, description });
    // 51 of 52 names start with `lib`: `libquick-notebook0` is a part (a glued namespace), its prior below one half.
    for (let i = 0; i < 50; i++) engine.add(`libfiller${i}`, { name: `libfiller${i}`, description: 'development files' });
    // Keywords: the part matches both words (`note` completed), the application one.
    expect(top('quick note', engine)[0]).toBe('libquick-notebook0');
    // A question asks for the application: the part's two words count as one, and the prior decides the tie.
    expect(top('where can I keep a quick note', engine)[0]).toBe('gnote');
    // A part of one word has a prior of one half exactly (×0.5, no longer title to take more): a part as well.
    const one = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['libquickpad0', 'quick notebook library'],
      ['gnote', 'desktop note'],
    ])
      one.add(name, { name, description });
    for (let i = 0; i < 50; i++) one.add(`libfiller${i}`, { name: `libfiller${i}`, description: 'development files' });
    expect(top('quick note', one)[0]).toBe('libquickpad0');
    expect(top('where can I keep a quick note', one)[0]).toBe('gnote');
  });
  it('counts one whole word fewer for a part twice over (a long or namespaced library title) in a sentence', () => {
    const index = (partName: string) => {
      const engine = new SearchIndex({ fields, sorts: [] });
      engine.add(partName, { name: partName, description: 'write a sticky note on the desktop' });
      engine.add('gnote', { name: 'gnote', description: 'write a note on the desktop' });
      // 51 of 52 names start with `lib`: a glued namespace, so a `lib…` title is a part (×0.5).
      for (let i = 0; i < 50; i++) engine.add(`libfiller${i}`, { name: `libfiller${i}`, description: 'development files' });
      return engine;
    };
    // Six title words take the part's prior to one quarter: its three words matched whole count as two, as its three
    // matched words count as two in criterion 1, and the application's prior decides the tie.
    const deep = index('libsticky-pad-widget-kit-gtk-data0');
    expect(top('where can I write a sticky note', deep)[0]).toBe('gnote');
    // Keywords keep every word: the part matches more of them.
    expect(top('write sticky note', deep)[0]).toBe('libsticky-pad-widget-kit-gtk-data0');
    // A part the prior halves once (two title words) keeps its whole words: criterion 4 still puts it first.
    expect(top('where can I write a sticky note', index('libsticky-pad0'))[0]).toBe('libsticky-pad0');
  });
  it("reads a query's English clitics as no words of their own (`computer's`, `doesn't`)", () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['boinc', 'use idle computer time for science'],
      ['manual', "a user's guide"],
      ['anacron', "cron-like program that doesn't go by time"],
    ])
      engine.add(name, { name, description });
    // `s` and `t` (or `doesn`) would match the other two.
    expect(top("my computer's idle time", engine)).toEqual(['boinc', 'anacron']);
    expect(top("the computer doesn't idle", engine)).toEqual(['boinc']);
    expect(top("can't use it", engine)).toEqual(['boinc']);
  });
  it('treats stop words as optional', () => {
    expect(top('the gimp')[0]).toBe('gimp');
    expect(top('the')).toEqual([]);
  });
  it('gives a word indexed nowhere as typed one more typo when the query has other words', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const name of ['gnome-shell', 'gnome-terminal']) engine.add(name, { name, description: 'part of gnome' });
    // `trminla` is two edits from `terminal`, one more than seven letters allow.
    expect(top('gnome trminla', engine)[0]).toBe('gnome-terminal');
  });
  it('keeps the terms fewest typos away when a word has more than enough within its typos', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    // 72 names two edits from `abcdefgh`, each twice, and one name one edit away, once.
    for (const x of 'ijklmnopq')
      for (const y of 'ijklmnop') for (const copy of [1, 2]) engine.add(`abcdef${x}${y}-${copy}`, { name: `abcdef${x}${y}` });
    engine.add('closest', { name: 'abcdefgz' });
    expect(top('abcdefgh', engine)[0]).toBe('closest');
  });
  it('finds something through the fallback when nothing matches', () => {
    expect(top('xqzvkj')).toEqual([]);
    expect(top('wirsark')[0]).toBe('wireshark');
  });
  it('finds, when nothing matches, a word indexed nowhere by its longest indexed beginning of at least 60 % of it, in names', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['inotify-tools', 'command-line programs providing a simple interface to inotify'],
      ['auto-editor', 'cut videos automatically'],
      ['inotify-doc', 'inotify documentation'],
    ])
      engine.add(name, { name, description });
    expect(top('inotifywait', engine).sort()).toEqual(['inotify-doc', 'inotify-tools']);
    // `auto` is 4 of `autohotkey`'s 10 letters: a name of its own, not a beginning of it.
    expect(top('autohotkey', engine)).toEqual([]);
  });
  it("finds a synonym's twin, one-way rules only from their input", () => {
    // The app's own stop words: no English equivalences beside its rules.
    const own = index({ stopWords: ['the'] });
    const withSynonyms = index({
      stopWords: ['the'],
      synonyms: [{ synonyms: ['tv', 'television'] }, { input: 'snake', synonyms: ['python3'] }],
    });
    expect(top('television', own)).toEqual(['television-guide']);
    expect(top('television', withSynonyms)).toEqual(expect.arrayContaining(['television-guide', 'tv-remote', 'tv-tuner']));
    expect(top('snake', withSynonyms)[0]).toBe('python3');
    expect(top('python3', withSynonyms)).not.toContain('snake');
  });
  it("reads the rules a query's words start, in the order the app's rules come", () => {
    const { ranking } = planIndex({
      fields,
      sorts: [],
      ranking: {
        stopWords: [],
        synonyms: [
          { input: 'text editor', synonyms: ['editor'] },
          { input: 'tv', synonyms: ['television'] },
          { input: 'text', synonyms: ['prose'] },
          { input: 'editor of text', synonyms: ['notepad'] },
        ],
      },
    });
    const inputs = (words: string[]) => synonymsStartingIn(ranking, words).map(({ input }) => input.join(' '));
    expect(inputs(['editor', 'tv', 'text', 'text'])).toEqual(['text editor', 'tv', 'text', 'editor of text']);
    expect(inputs(['television', 'prose'])).toEqual([]);
  });
  it('finds the English equivalents of a word by default, a narrower word the wider one only, none with own stop words', () => {
    expect(top('television', plain)).toEqual(expect.arrayContaining(['television-guide', 'tv-remote', 'tv-tuner']));
    expect(top('television', index({ stopWords: [] }))).toEqual(['television-guide']);
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['shotwell', 'photo manager'],
      ['gimp', 'image manipulation program'],
      ['geany', 'integrated development environment'],
      ['vim', 'text editor'],
      ['ardour', 'digital audio workstation'],
      ['nvtop', 'process monitor for the graphics card'],
      ['gmrun', 'application launcher'],
      ['rocket-launcher', 'model rocket simulator'],
    ])
      engine.add(name, { name, description });
    // A photo is an image; not every image is a photo.
    expect(top('photo', engine)).toEqual(['shotwell', 'gimp']);
    expect(top('image', engine)).toEqual(['gimp']);
    // An abbreviation finds its words, next to each other.
    expect(top('ide', engine)).toEqual(['geany']);
    expect(top('development environment', engine)).toEqual(['geany']);
    expect(top('daw', engine)).toEqual(['ardour']);
    expect(top('gpu', engine)).toEqual(['nvtop']);
    // `app` is short for `application`.
    expect(top('app launcher', engine)).toEqual(['gmrun', 'rocket-launcher']);
  });
  it('finds the words descriptions use for a task typed otherwise, and an abbreviation beside its word (general26)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['ansible', 'configuration management, deployment, and task execution system'],
      ['pkg-config', 'manage compile and link flags for libraries'],
      ['grsync', 'GTK+ frontend for rsync'],
      ['rsync', 'fast, versatile, remote (and local) file-copying tool'],
      ['tre-agrep', 'approximate grep utility based on the tre library'],
      ['fzf', 'general-purpose command-line fuzzy finder'],
      ['ext4magic', 'recover deleted files from ext3 or ext4 partitions'],
      ['lacheck', 'simple syntax checker for LaTeX'],
      ['secure-delete', 'tools to wipe files, free disk space, swap and memory'],
      ['tidy', 'HTML/XML syntax checker and reformatter'],
      ['weblint', 'HTML page generator'],
      ['feh', 'imlib2 based image viewer'],
      ['mp3splt', 'split mp3 files without re-encoding'],
      ['pandoc', 'general markup converter'],
      ['scummvm', 'engine for several graphical adventure games'],
      ['frotz', 'interpreter of text adventure games'],
    ])
      engine.add(name, { name, description });
    expect(top('config management', engine)[0]).toBe('ansible');
    // Both ways: the spelled-out word finds the abbreviation.
    expect(top('configuration', engine)).toContain('pkg-config');
    expect(top('rsync gui', engine)[0]).toBe('grsync');
    expect(top('fuzzy grep', engine)[0]).toBe('tre-agrep');
    expect(top('undelete files', engine)[0]).toBe('ext4magic');
    expect(top('latex lint', engine)[0]).toBe('lacheck');
    expect(top('shred files', engine)[0]).toBe('secure-delete');
    expect(top('html validator', engine)[0]).toBe('tidy');
    expect(top('pic viewer', engine)).toEqual(['feh']);
    expect(top('cut mp3', engine)[0]).toBe('mp3splt');
    expect(top('markdown to pdf', engine)[0]).toBe('pandoc');
    expect(top('point and click adventure', engine)[0]).toBe('scummvm');
    // One-way: the wider or descriptive word does not find the narrower one typed elsewhere.
    expect(top('approximate', engine)).toEqual(['tre-agrep']);
  });
  it('finds the everyday name of a thing through the words descriptions use for it, one-way (nl30)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['rkward', 'KDE frontend to the R statistics language'],
      ['jstest-gtk', 'joystick testing and configuration tool'],
      ['aiksaurus', 'English-language thesaurus'],
      ['ncdu', 'ncurses disk usage viewer'],
      ['flatpak', 'Application deployment framework for desktop apps'],
      ['chrony', 'keeps the system time in sync'],
      ['homebank', 'personal finance manager'],
      ['xclock', 'analog clock'],
    ])
      engine.add(name, { name, description });
    expect(top('a graphical interface for r', engine)[0]).toBe('rkward');
    expect(top('test my game controller', engine)[0]).toBe('jstest-gtk');
    expect(top('look up a synonym for a word', engine)[0]).toBe('aiksaurus');
    expect(top('what is using all my disk space', engine)[0]).toBe('ncdu');
    expect(top('install apps from flathub', engine)[0]).toBe('flatpak');
    expect(top('keep my clock in sync', engine)[0]).toBe('chrony');
    expect(top('track my expenses', engine)[0]).toBe('homebank');
    // One-way: the word descriptions use does not find the everyday one.
    expect(top('time', engine)).toEqual(['chrony']);
  });
  it('finds the kind of thing a name or an everyday phrase stands for, one-way (nl30)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['nheko', 'desktop IM client for the Matrix protocol'],
      ['matrix-synapse', 'Matrix homeserver'],
      ['xmldiff', 'command line utility for diffing xml files'],
      ['xmlcompare', 'xml file validator'],
      ['gpsbabel', 'GPS file conversion'],
      ['krop', 'tool to crop PDF files'],
      ['nut', 'network UPS tools'],
      ['sonic', 'speed up or slow down speech'],
      ['ardour', 'the digital audio workstation'],
      ['uglifyjs', 'JavaScript compressor'],
      ['ptpython', 'Python prompt with auto-completion'],
      ['logtop', 'real time log line rate analyzer'],
    ])
      engine.add(name, { name, description });
    expect(top('which app can I use to chat on matrix', engine)[0]).toBe('nheko');
    expect(top('compare two xml files', engine)[0]).toBe('xmldiff');
    expect(top('convert a gpx file to kml', engine)[0]).toBe('gpsbabel');
    expect(top('cut off the white margins of a pdf', engine)[0]).toBe('krop');
    expect(top('shut down my computer safely when the power fails', engine)[0]).toBe('nut');
    expect(top('speed up a recording of someone talking', engine)[0]).toBe('sonic');
    expect(top('I want to make music', engine)[0]).toBe('ardour');
    expect(top('minify my javascript', engine)[0]).toBe('uglifyjs');
    expect(top('a python shell with autocomplete', engine)[0]).toBe('ptpython');
    expect(top('how many lines per second is my log getting', engine)[0]).toBe('logtop');
    // One-way: the catalogue's word does not find the everyday one.
    expect(top('diff', engine)).toEqual(['xmldiff']);
  });
  it("matches a synonym's words with its last word's other number too (`vm` -> `virtual machines`)", () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['virt-manager', 'desktop application for managing virtual machines'],
      ['lxc', 'container manager'],
      ['vim', 'text editor'],
    ])
      engine.add(name, { name, description });
    expect(top('vm', engine)).toEqual(['virt-manager']);
    expect(top('vm manager', engine)[0]).toBe('virt-manager');
  });
  it('counts a query word held by an exact-mode field as matched, in a query of several words, unscored', () => {
    const engine = new SearchIndex({ fields: [...fields, field('section', 'string', { searchMode: 'exact' })], sorts: [] });
    for (const [name, description, section] of [
      ['xfrisk', 'playing risk with humans', 'games'],
      ['val-and-rick', 'shooter game', 'games'],
      ['scram', 'risk analysis', 'science'],
      ['riskgame', 'risk game', 'science'],
      ['tetris', 'falling blocks', 'games'],
    ])
      engine.add(name, { name, description, section });
    // `game` is matched in section `games` (its plural): two words without a typo, above `rick`, one typo from `risk`;
    // unscored, the section ranks no document holding both words in its description below one holding it there, and
    // matches no document by itself (`tetris`).
    expect(top('risk game', engine)).toEqual(['riskgame', 'xfrisk', 'val-and-rick', 'scram']);
    // One word: the whole value's match, as before.
    expect(top('games', engine)).toEqual(expect.arrayContaining(['tetris', 'val-and-rick', 'xfrisk']));
  });
  it('finds protocol and computing abbreviations beside their spelled-out form, both ways', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['libssl3', 'secure sockets layer toolkit - shared libraries'],
      ['ngircd', 'lightweight internet relay chat server'],
      ['snmpd', 'SNMP agents'],
      ['pidgin', 'graphical chat client'],
      ['kdesvn', 'subversion client for KDE'],
    ])
      engine.add(name, { name, description });
    expect(top('ssl library', engine)).toEqual(['libssl3']);
    expect(top('irc server', engine)).toEqual(['ngircd']);
    expect(top('simple network management protocol', engine)).toEqual(['snmpd']);
    expect(top('svn client', engine)[0]).toBe('kdesvn');
    // Without the English lists (an app's own stop words), only what says the abbreviation itself.
    const own = new SearchIndex({ fields, sorts: [], ranking: { stopWords: ['the'] } });
    own.add('libssl3', { name: 'libssl3', description: 'secure sockets layer toolkit - shared libraries' });
    expect(top('ssl', own)).toEqual([]);
  });
  it("splits a glued word with its last word's other number too (`flashcards` -> `flash card`)", () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('mnemosyne', { name: 'mnemosyne', description: 'spaced repetition flash-card program' });
    engine.add('pysolfc', { name: 'pysolfc', description: 'solitaire with cards' });
    engine.add('flashrom', { name: 'flashrom', description: 'flash chips' });
    expect(top('flashcards', engine)[0]).toBe('mnemosyne');
  });
  it('finds an initialism written with dots as the word its letters spell', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('smartmontools', { name: 'smartmontools', description: 'control and monitor storage systems using S.M.A.R.T.' });
    engine.add('hdparm', { name: 'hdparm', description: 'tune hard disk parameters' });
    engine.add('mgetty', { name: 'mgetty', description: 'Smart Modem getty replacement' });
    expect(top('smart storage', engine)).toEqual(['smartmontools', 'mgetty']);
    expect(top('smart', engine)).toContain('smartmontools');
  });
  it('takes a synonym for a whole word: the last query word is completed, its synonym not (`virtual machine` -> `vm`, not `vmg`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['virt-manager', 'manage virtual machines'],
      ['vm', 'emacs mail reader'],
      ['vmg', 'magnifying glass'],
    ])
      engine.add(name, { name, description });
    expect(top('virtual machine', engine)).toEqual(expect.arrayContaining(['virt-manager', 'vm']));
    expect(top('virtual machine', engine)).not.toContain('vmg');
    // The query word itself is still completed as it is typed.
    expect(top('virtual mach', engine)).toContain('virt-manager');
  });
  it('gives a name equal to or starting with a synonym no attribute exactness: the words typed win (`remote desktop`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['rdp-classifier', 'sequence classifier'],
      ['remmina', 'remote desktop client'],
    ])
      engine.add(name, { name, description });
    expect(top('remote desktop', engine)).toEqual(['remmina', 'rdp-classifier']);
    // Typed, the same name leads.
    expect(top('rdp', engine)[0]).toBe('rdp-classifier');
  });
  it('finds an abbreviation from its full word only (`microsoft` -> `ms`), and `bittorrent` from a torrent', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['mdbtools', 'ms access database tools'],
      ['wine', 'runs microsoft windows programs'],
      ['transmission', 'bittorrent client'],
      ['bittornado', 'torrent downloader'],
    ])
      engine.add(name, { name, description });
    expect(top('microsoft', engine)).toEqual(expect.arrayContaining(['wine', 'mdbtools']));
    // `ms` alone is also milliseconds or a mass spectrometer: it finds only what says `ms`.
    expect(top('ms', engine)).toEqual(['mdbtools']);
    expect(top('torrent', engine)).toEqual(expect.arrayContaining(['transmission', 'bittornado']));
    expect(top('torrents', engine)).toContain('transmission');
    expect(top('bittorrent', engine)).toEqual(['transmission']);
  });
  it('finds `memory` for `ram`, a screen capture for a screenshot, and `info` and `information` for each other', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['memtester', 'utility for testing the memory subsystem'],
      ['ramdisk', 'make a ram disk'],
      ['flameshot', 'screen capture tool'],
      ['scrot', 'screenshot maker'],
      ['hardinfo', 'displays system information'],
      ['lshw', 'hardware info lister'],
    ])
      engine.add(name, { name, description });
    expect(top('test my ram', engine)).toEqual(expect.arrayContaining(['memtester', 'ramdisk']));
    // RAM is memory; not every memory (a memory leak, a memory card) is RAM.
    expect(top('memory', engine)).toEqual(['memtester']);
    expect(top('screenshot', engine)).toEqual(expect.arrayContaining(['scrot', 'flameshot']));
    expect(top('screenshots', engine)).toContain('flameshot');
    expect(top('screen capture', engine)).toEqual(['flameshot']);
    expect(top('hardware info', engine)).toEqual(expect.arrayContaining(['lshw', 'hardinfo']));
    expect(top('system information', engine)).toEqual(expect.arrayContaining(['hardinfo', 'lshw']));
  });
  it('finds a `vehicle` for a `car`, and a text-mode interface for a `tui`', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['scantool', 'vehicle diagnostic scanner'],
      ['racer', 'car racing game'],
      ['tig', 'text-mode interface for git'],
      ['gitg', 'graphical interface for git'],
    ])
      engine.add(name, { name, description });
    expect(top('car diagnostics', engine)[0]).toBe('scantool');
    // A vehicle is not always a car: `vehicle` finds no `car`.
    expect(top('vehicle', engine)).toEqual(['scantool']);
    expect(top('git tui', engine)[0]).toBe('tig');
  });
  it('finds the words descriptions use for a role people name otherwise (`screen sharing` ~ `desktop sharing`, `hotspot` -> `access point`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['krfb', 'desktop sharing utility'],
      ['screenkey', 'show key presses on the screen'],
      ['samba', 'file sharing server'],
      ['nfs-kernel-server', 'file sharing over nfs'],
      ['hotspot', 'performance analysis gui'],
      ['textcat', 'text language detection'],
      ['qt-tools', 'gui toolkit helpers'],
      ['pbuilder', 'personal package builder'],
      ['sbuild', 'chroot package builder'],
      ['redshift', 'adjusts the color temperature of your screen'],
      ['hostapd', 'access point for wifi'],
      ['uchardet', 'charset detection'],
      ['mumble-server', 'low latency voip server'],
      ['scribus', 'desktop page layout'],
      ['glade', 'user interface builder'],
      ['fd-find', 'simple alternative to find'],
      ['biber', 'bibtex replacement'],
    ])
      engine.add(name, { name, description });
    expect(top('screen sharing', engine)[0]).toBe('krfb');
    expect(top('blue light filter', engine)).toEqual(['redshift']);
    expect(top('wifi hotspot', engine)[0]).toBe('hostapd');
    expect(top('text encoding detection', engine)[0]).toBe('uchardet');
    expect(top('voice chat server', engine)[0]).toBe('mumble-server');
    expect(top('desktop publishing', engine)[0]).toBe('scribus');
    expect(top('gui builder', engine)[0]).toBe('glade');
    expect(top('find replacement', engine)[0]).toBe('fd-find');
    // One-way: an alternative is not always a replacement.
    expect(top('alternative', engine)).toEqual(['fd-find']);
  });
  it('finds the words descriptions use for a tool people name by what it looks like or does (`eyedropper` -> `color picker`, `night light` -> `color temperature`, `media center` -> `home theatre`, `js` ~ `javascript`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['gpick', 'advanced color picker'],
      ['dia', 'diagram editor'],
      ['knotes', 'sticky notes application'],
      ['notes', 'plain notes'],
      ['redshift', 'adjusts the color temperature of your screen'],
      ['light', 'control backlight controllers'],
      ['gramps', 'genealogical research program'],
      ['kmymoney', 'personal finance manager'],
      ['rabbitmq-server', 'amqp message broker'],
      ['openarena', 'fast paced 3d first person shooter'],
      ['mangohud', 'overlay for monitoring fps'],
      ['gufw', 'gui for ufw'],
      ['maxima', 'computer algebra system'],
      ['eslint', 'pattern checker for javascript'],
      ['gnome-sound-recorder', 'simple sound recorder'],
      ['kmag', 'screen magnifier tool'],
      ['cheese', 'take pictures and videos from your webcam'],
      ['keepassxc', 'cross platform password manager'],
      ['nodejs', 'evented i/o for v8 javascript - runtime executable'],
      ['inadyn', 'dynamic dns client'],
      ['kodi', 'open source home theatre'],
      ['abiword', 'efficient, featureful word processor'],
      ['clamav', 'antivirus utility'],
      ['redmine', 'flexible issue tracking'],
      ['kstars', 'desktop planetarium'],
      ['rinetd', 'tcp redirection server'],
      ['hydrogen', 'advanced drum machine'],
      ['kalzium', 'periodic table and chemistry tools'],
      ['planner', 'project management application'],
      ['bonnie++', 'hard drive benchmark suite'],
      ['meld', 'graphical tool to diff and merge files'],
      ['gwc', 'audio file denoiser'],
      ['gnomint', 'x.509 certification authority management tool'],
      ['jabref', 'graphical frontend to manage bibtex databases'],
      ['ardour', 'the digital audio workstation'],
      ['calibre', 'powerful and easy to use e-book manager'],
      ['simplescreenrecorder', 'feature-rich screen recorder'],
      ['nload', 'realtime console network usage monitor'],
      ['supertux', "classic 2d jump 'n run sidescroller with tux"],
      ['avahi-daemon', 'avahi mdns/dns-sd daemon'],
      ['gucharmap', 'unicode character picker and font browser'],
      ['trayer', 'lightweight systray for unix desktop'],
      ['amule', 'client for the ed2k and kad networks'],
      ['peruse', 'comic book reader'],
      ['sjaakii', 'computer player for chess variants, including shogi and xiangqi'],
      ['colordiff', "tool to colorize 'diff' output"],
      ['libheif-examples', 'heif file format decoder'],
      ['kid3', 'audio tag editor'],
      ['network-manager', 'network management framework'],
      ['autorandr', 'automatically select a display configuration'],
      ['gocryptfs', 'encrypted overlay filesystem'],
      ['httrack', 'copy websites to your computer (offline browser)'],
      ['optipng', 'advanced png optimizer'],
      ['mat2', 'metadata anonymisation toolkit'],
      ['hedgewars', 'turn-based artillery game'],
      ['proj-bin', 'cartographic projection library'],
      ['hledger', 'command-line double-entry accounting tool'],
      ['songwrite', 'guitar tablature editor and player'],
      ['samhain', 'data integrity and host intrusion alert system'],
      ['trickle', 'user-space bandwidth shaper'],
      ['krusader', 'twin-panel (commander-style) file manager'],
      ['nautilus', 'file manager for gnome'],
      ['diskstat', 'per-disk I/O statistics'],
      ['tcpdump', 'command-line network traffic analyzer'],
      ['gprename', 'complete batch renamer'],
      ['389-ds-base', '389 directory server suite'],
      ['fontforge', 'font editor'],
      ['kanjidraw', 'handwritten kanji recognition'],
      ['unison', 'file synchronization tool'],
      ['mp3rename', 'rename mp3 files'],
      ['siril', 'astronomical image processing tool'],
      ['seahorse', 'gnome front end for gnupg'],
    ])
      engine.add(name, { name, description });
    expect(top('eyedropper', engine)).toEqual(['gpick']);
    expect(top('flowchart', engine)).toEqual(['dia']);
    expect(top('post it notes', engine)[0]).toBe('knotes');
    expect(top('night light', engine)[0]).toBe('redshift');
    expect(top('family tree', engine)).toEqual(['gramps']);
    expect(top('money manager', engine)[0]).toBe('kmymoney');
    expect(top('message queue', engine)).toEqual(['rabbitmq-server']);
    expect(top('fps game', engine)[0]).toBe('openarena');
    expect(top('symbolic math', engine)[0]).toBe('maxima');
    expect(top('js linter', engine)[0]).toBe('eslint');
    expect(top('voice recorder', engine)[0]).toBe('gnome-sound-recorder');
    expect(top('screen zoom', engine)[0]).toBe('kmag');
    expect(top('photobooth', engine)).toEqual(['cheese']);
    expect(top('password vault', engine)).toEqual(['keepassxc']);
    expect(top('js runtime', engine)[0]).toBe('nodejs');
    expect(top('ddns client', engine)[0]).toBe('inadyn');
    expect(top('media center', engine)[0]).toBe('kodi');
    expect(top('word document', engine)[0]).toBe('abiword');
    expect(top('malware scanner', engine)[0]).toBe('clamav');
    expect(top('budget', engine)[0]).toBe('kmymoney');
    expect(top('bug tracker', engine)[0]).toBe('redmine');
    expect(top('astronomy', engine)[0]).toBe('kstars');
    expect(top('port forwarding', engine)[0]).toBe('rinetd');
    expect(top('beat maker', engine)[0]).toBe('hydrogen');
    expect(top('chemical elements', engine)[0]).toBe('kalzium');
    expect(top('gantt chart', engine)[0]).toBe('planner');
    expect(top('disk speed test', engine)[0]).toBe('bonnie++');
    expect(top('diff gui', engine)[0]).toBe('meld');
    expect(top('noise reduction', engine)[0]).toBe('gwc');
    expect(top('certificate authority', engine)[0]).toBe('gnomint');
    expect(top('reference manager', engine)[0]).toBe('jabref');
    expect(top('music production', engine)[0]).toBe('ardour');
    expect(top('kindle', engine)).toEqual(['calibre']);
    expect(top('desktop recorder', engine)[0]).toBe('simplescreenrecorder');
    expect(top('internet usage', engine)[0]).toBe('nload');
    expect(top('platformer', engine)[0]).toBe('supertux');
    expect(top('zeroconf', engine)[0]).toBe('avahi-daemon');
    expect(top('character map', engine)[0]).toBe('gucharmap');
    expect(top('system tray', engine)[0]).toBe('trayer');
    expect(top('edonkey client', engine)[0]).toBe('amule');
    expect(top('manga reader', engine)[0]).toBe('peruse');
    expect(top('chinese chess', engine)[0]).toBe('sjaakii');
    expect(top('diff highlighting', engine)[0]).toBe('colordiff');
    expect(top('heic converter', engine)[0]).toBe('libheif-examples');
    expect(top('id3 editor', engine)[0]).toBe('kid3');
    expect(top('wifi manager', engine)[0]).toBe('network-manager');
    expect(top('multi monitor', engine)[0]).toBe('autorandr');
    expect(top('encrypted folder', engine)[0]).toBe('gocryptfs');
    expect(top('website mirror', engine)[0]).toBe('httrack');
    expect(top('image compression', engine)[0]).toBe('optipng');
    expect(top('metadata removal', engine)[0]).toBe('mat2');
    expect(top('worms game', engine)[0]).toBe('hedgewars');
    expect(top('map projection', engine)[0]).toBe('proj-bin');
    expect(top('plain text accounting', engine)[0]).toBe('hledger');
    expect(top('tab editor', engine)[0]).toBe('songwrite');
    expect(top('hids', engine)[0]).toBe('samhain');
    expect(top('pki', engine)[0]).toBe('gnomint');
    expect(top('bandwidth limit', engine)[0]).toBe('trickle');
    expect(top('orthodox file manager', engine)[0]).toBe('krusader');
    expect(top('io', engine)[0]).toBe('diskstat');
    expect(top('packet sniffer', engine)[0]).toBe('tcpdump');
    expect(top('mass rename', engine)[0]).toBe('gprename');
    expect(top('ldap server', engine)[0]).toBe('389-ds-base');
    expect(top('glyph editor', engine)[0]).toBe('fontforge');
    expect(top('handwriting', engine)).toEqual(['kanjidraw']);
    expect(top('sync files', engine)[0]).toBe('unison');
    expect(top('astrophotography', engine)).toEqual(['siril']);
    expect(top('gpg', engine)).toEqual(['seahorse']);
    // One-way: an fps alone is frames per second, a finance is not always money, a checker not always a linter.
    expect(top('fps', engine)).toEqual(['mangohud']);
    expect(top('finance', engine)).toEqual(['kmymoney']);
    expect(top('checker', engine)).toEqual(['eslint']);
    expect(top('antivirus', engine)).toEqual(['clamav']);
    expect(top('graphical', engine).sort()).toEqual(['jabref', 'meld']);
  });
  it('finds the one verb a description uses for a phrasal verb of a question (`look at` -> `view`, `set up` -> `configure`, `get back` -> `recover`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['ksystemlog', 'system log viewer'],
      ['system-logs', 'rotates files'],
      ['netcfg', 'configure the network'],
      ['net-tools', 'network network tools'],
      ['doclist', 'documents list'],
      ['bleachbit', 'remove unnecessary files'],
      ['photorec', 'recover lost files'],
      ['recoll', 'search your documents'],
      ['themer', 'change the look of the desktop'],
    ])
      engine.add(name, { name, description });
    expect(top('how can I look at the system logs', engine)[0]).toBe('ksystemlog');
    expect(top('set up the network', engine)[0]).toBe('netcfg');
    expect(top('network setup', engine)[0]).toBe('netcfg');
    expect(top('setup', engine)).toEqual(['netcfg']);
    expect(top('get rid of old kernels', engine)).toEqual(['bleachbit']);
    expect(top('get back my deleted photos', engine)).toEqual(['photorec']);
    expect(top('look for words in my documents', engine)[0]).toBe('recoll');
    // The verbs alone keep their own meaning: `look` finds no viewer.
    expect(top('look', engine)).toEqual(['themer']);
  });
  it('finds a command-line program for a terminal of a question (`read my email in a terminal`), one-way', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['neomutt', 'command line mail reader'],
      ['xterm', 'terminal emulator'],
    ])
      engine.add(name, { name, description });
    // The command-line program is found beside the word as typed.
    expect(top('a mail reader for the terminal', engine)[0]).toBe('neomutt');
    expect(top('a program for the terminal', engine).sort()).toEqual(['neomutt', 'xterm']);
    // One-way: a command line is not always a terminal.
    expect(top('command line', engine)).toEqual(['neomutt']);
  });
  it('finds converting for turning one thing into another (`turn a picture into a sound`), one-way', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['enscribe', 'convert an image into sound'],
      ['picsound', 'picture and sound viewer'],
      ['unoconv', 'office document converter'],
      ['pageturn', 'turn the pages of a book'],
    ])
      engine.add(name, { name, description });
    expect(top('turn a picture into a sound', engine)[0]).toBe('enscribe');
    expect(top('turn my office document into a pdf', engine)[0]).toBe('unoconv');
    // Converting is not always turning: `convert` finds no page turner.
    expect(top('convert', engine)).toEqual(['enscribe', 'unoconv']);
  });
  it('takes tool, utility and program for one another, and a server as its daemon, a reader as a viewer, epub as an ebook (one-way)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['deja-dup', 'backup utility'],
      ['borgbackup', 'deduplicating backup program'],
      ['backupnotes', 'notes about backup strategies'],
      ['hammer', 'a tool for nails'],
      ['openntpd', 'openbsd ntp daemon'],
      ['ntplib', 'library to query ntp'],
      ['evince', 'document (postscript, pdf) viewer'],
      ['pdfgrep', 'search text in pdf files'],
      ['fbreader', 'e-book reader'],
      ['epubcheck', 'validation for epub'],
    ])
      engine.add(name, { name, description });
    // Both words matched, the kind noun as another of its kind, before the one word alone.
    expect(top('backup tool', engine).slice(0, 2).sort()).toEqual(['borgbackup', 'deja-dup']);
    expect(top('ntp server', engine)[0]).toBe('openntpd');
    expect(top('pdf reader', engine)[0]).toBe('evince');
    expect(top('epub reader', engine)[0]).toBe('fbreader');
    // One-way: a daemon, a viewer, an ebook are not asked for as a server, a reader, an epub.
    expect(top('daemon', engine)).toEqual(['openntpd']);
    expect(top('viewer', engine)).toEqual(['evince']);
    expect(top('ebook', engine)).toEqual(['fbreader']);
  });
  it('finds the words descriptions use for an everyday need named otherwise (`file explorer` -> `file manager`, `code editor` -> `text editor`, `init system` -> `service manager`, `shredder` -> `wipe`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['thunar', 'file manager for xfce'],
      ['treemacs', 'tree layout explorer for emacs'],
      ['kate', 'powerful text editor'],
      ['geany', 'fast and lightweight ide'],
      ['bcnc', 'g-code sender'],
      ['systemd', 'system and service manager'],
      ['initscripts', 'scripts for the system boot'],
      ['wipe', 'secure file deletion'],
      ['secure-delete', 'tools to wipe files'],
    ])
      engine.add(name, { name, description });
    expect(top('file explorer', engine)[0]).toBe('thunar');
    expect(top('code editor', engine).slice(0, 2).sort()).toEqual(['geany', 'kate']);
    expect(top('init system', engine)[0]).toBe('systemd');
    expect(top('file shredder', engine).slice(0, 2).sort()).toEqual(['secure-delete', 'wipe']);
  });
  it("finds the kind of program a proprietary program's name stands for (`excel` -> `spreadsheet`, `photoshop` -> `image editor`), one-way", () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['gnumeric', 'spreadsheet application'],
      ['libformula', 'excel style formula library'],
      ['impress', 'presentation program'],
      ['gimp', 'GNU Image Manipulation Program'],
      ['kolourpaint', 'simple image editor'],
      ['octave', 'language for numerical computations'],
    ])
      engine.add(name, { name, description });
    expect(top('excel', engine)).toEqual(['libformula', 'gnumeric']);
    expect(top('powerpoint', engine)).toEqual(['impress']);
    expect(top('photoshop', engine).sort()).toEqual(['gimp', 'kolourpaint']);
    expect(top('matlab', engine)).toEqual(['octave']);
    expect(top('spreadsheet', engine)).toEqual(['gnumeric']);
  });
  it('finds the kind of program more proprietary names stand for (`keynote` -> `presentation`, `pro tools` -> `digital audio workstation`, `snagit` -> `screenshot`), one-way', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['calligrastage', 'presentation program'],
      ['key2odp', 'keynote to odp converter'],
      ['ardour', 'the digital audio workstation'],
      ['epiphany', 'intuitive web browser'],
      ['hexchat', 'irc client for x'],
      ['kbibtex', 'bibtex editor'],
      ['ksnip', 'screenshot tool'],
      ['abiword', 'efficient word processor'],
      ['meld', 'graphical tool to diff and merge files'],
    ])
      engine.add(name, { name, description });
    expect(top('keynote', engine)).toEqual(['key2odp', 'calligrastage']);
    expect(top('pro tools', engine)[0]).toBe('ardour');
    expect(top('safari', engine)).toEqual(['epiphany']);
    expect(top('mirc', engine)).toEqual(['hexchat']);
    expect(top('endnote', engine)).toEqual(['kbibtex']);
    expect(top('snagit', engine)).toEqual(['ksnip']);
    expect(top('ms word', engine)).toEqual(['abiword']);
    expect(top('beyond compare', engine)).toEqual(['meld']);
    expect(top('presentation', engine)).toEqual(['calligrastage']);
  });
  it("glues a one-word synonym's replacement to the query word beside it, as typed words glue (`audio converter` -> `soundconverter`)", () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('soundconverter', { name: 'soundconverter', description: 'application to convert files into other formats' });
    engine.add('winff', { name: 'winff', description: 'graphical video and audio batch converter' });
    engine.add('dir2ogg', { name: 'dir2ogg', description: 'audio file converter' });
    // `sound` is `audio`'s equivalent: `sound` and `converter` glued name the program.
    expect(top('audio converter', engine)[0]).toBe('soundconverter');
    expect(top('converter audio', engine)[0]).not.toBe('soundconverter');
  });
  it('orders ties by custom ranking, after every other criterion', () => {
    expect(top('remote control', plain).slice(0, 2)).toEqual(['tv-remote', 'tv-tuner']);
    expect(top('control', index({ customRanking: [{ field: 'popularity', direction: 'asc' }] }))).toEqual(['tv-tuner', 'tv-remote']);
    expect(top('control', index({ customRanking: [{ field: 'featured', direction: 'desc' }] }))).toEqual(['tv-tuner', 'tv-remote']);
    expect(top('control', index({ customRanking: [{ field: 'popularity', direction: 'desc' }] }))).toEqual(['tv-remote', 'tv-tuner']);
  });
  it('takes names starting with two query words glued as a family without a head when those glued begin one', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    // Six names begin with `hamradio`, none is `hamradio`: the glued interpretation of `ham radio` starts each.
    for (const part of ['files', 'sdr', 'all', 'antenna', 'logs', 'voice'])
      engine.add(`hamradio-${part}`, { name: `hamradio-${part}`, description: 'collection of packages' });
    engine.add('cqlog', { name: 'cqlog', description: 'ham radio logging program' });
    expect(top('ham radio', engine)[0]).toBe('cqlog');
  });
  it('ranks a name starting with the query first, not a description starting with it', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('alpha', { name: 'alpha', description: 'irc client for the emacs editor here' });
    engine.add('beta', { name: 'beta', description: 'graphical irc client' });
    expect(top('irc client', engine)).toEqual(['beta', 'alpha']);
  });
  it('weighs a field by its term frequency before saturation (BM25F): a short description about the word above a name holding it among others', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    // The weight times the saturated score ranked the name's match ×10/3 above the description's: ros-geometry-msgs first.
    engine.add('ros-geometry-msgs', { name: 'ros-geometry-msgs', description: 'messages for robots' });
    engine.add('kig', { name: 'kig', description: 'interactive geometry tool' });
    expect(top('geometry', engine)).toEqual(['kig', 'ros-geometry-msgs']);
    // A name that is the word still comes first (attribute exactness), whatever the description says.
    engine.add('geometry', { name: 'geometry', description: 'a library' });
    expect(top('geometry', engine)[0]).toBe('geometry');
  });
  it('ranks query words next to each other in a field above the same words apart', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    // Same words, same lengths: without proximity the ids would decide (alpha first).
    engine.add('alpha', { name: 'alpha', description: 'text tools and an editor' });
    engine.add('beta', { name: 'beta', description: 'a text editor with tools' });
    expect(top('text editor', engine)).toEqual(['beta', 'alpha']);
  });
  it('takes query words with only stop words between them as next to each other where the field has them as close', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['passage', 'life game'],
      ['golly', 'game of life simulator'],
      ['hashgame', 'game engine using hashlife'],
    ])
      engine.add(name, { name, description });
    // `of` is optional: "game of life" holds `game` and `life` as the query does, above "life game" (near, reversed).
    expect(top('game of life', engine).slice(0, 2)).toEqual(['golly', 'passage']);
  });
  it('ranks query words near each other in a field above the same words further apart, and below words next to each other', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    // Same words, same lengths: without nearness alpha and beta would tie, the ids putting alpha first.
    engine.add('alpha', { name: 'alpha', description: 'text and many tools editor' });
    engine.add('beta', { name: 'beta', description: 'text and tools editor many' });
    engine.add('gamma', { name: 'gamma', description: 'many and tools text editor' });
    expect(top('text editor', engine)).toEqual(['gamma', 'beta', 'alpha']);
  });
  it('ranks a field naming the one query word early above one naming it late', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    // Same words, same lengths: without the position, the ids would decide (alpha first).
    engine.add('alpha', { name: 'alpha', description: 'software for algebraic geometry research' });
    engine.add('beta', { name: 'beta', description: 'interactive geometry software for research' });
    expect(top('geometry', engine)).toEqual(['beta', 'alpha']);
  });
  it('ranks, of two keywords, a document matching only the rarer word above one matching only the commoner', () => {
    const withFillers = (rows: string[][]) => {
      const engine = new SearchIndex({ fields, sorts: [] });
      for (const [name, description] of rows) engine.add(name, { name, description });
      for (let i = 0; i < 24; i++) engine.add(`filler${i}`, { name: `filler${i}`, description: 'something else entirely' });
      return engine;
    };
    const engine = withFillers([
      ['editor', 'plain text'],
      ['editor-data', 'data files'],
      ['editor-doc', 'manual'],
      ['vi', 'visual editor'],
      ['ed', 'line editor'],
      ['tabcsv', 'tools for comma separated values in csv files'],
      ['csvkit', 'csv utilities'],
      ['tabview', 'csv file editor'],
    ]);
    // The family head `editor` equals the commoner word in the heaviest field: by score alone it came second.
    expect(top('csv editor', engine).slice(0, 4)).toEqual(['tabview', 'csvkit', 'tabcsv', 'editor']);
    expect(top('editor csv', engine).slice(0, 4)).toEqual(['tabview', 'csvkit', 'tabcsv', 'editor']);
    // A query read as a sentence (a stop word) keeps the score's order.
    expect(top('editor for csv', engine)[1]).toBe('editor');
    // A word counts with its other forms: `viewer` is in one document, but with `view` in four, so `tv` is the rarer.
    const forms = withFillers([
      ['viewer', 'generic file display'],
      ['view-files', 'view files'],
      ['view-images', 'view images'],
      ['view-logs', 'view logs'],
      ['tvtime', 'watch tv'],
      ['tvguide', 'tv listings'],
    ]);
    expect(top('tv viewer', forms).slice(0, 2).sort()).toEqual(['tvguide', 'tvtime']);
  });
  it('ranks, of a sentence, a document matching only its topic word (held ten times as rarely) above one matching only another', () => {
    const withCheckers = (count: number) => {
      const engine = new SearchIndex({ fields, sorts: [] });
      engine.add('check', { name: 'check', description: 'unit testing framework for c' });
      const long = 'a collection of user level programs to create and maintain reiserfs filesystems on all kinds of disks';
      engine.add('reiserfsprogs', { name: 'reiserfsprogs', description: long });
      for (let i = 0; i < count; i++) engine.add(`lint${i}`, { name: `lint${i}`, description: `check style number ${i}` });
      for (let i = 0; i < 200; i++) engine.add(`other${i}`, { name: `other${i}`, description: 'something else entirely' });
      return engine;
    };
    // `check` in 12 documents, `reiserfs` in one; `repair` and `partition`, indexed nowhere, are left out.
    expect(top('check and repair a reiserfs partition', withCheckers(10))[0]).toBe('reiserfsprogs');
    // In 6 documents `check` is not ten times as common: the score's order (the name equals `check`) stays.
    expect(top('check and repair a reiserfs partition', withCheckers(4))[0]).toBe('check');
    // Keywords without a stop word are no sentence: more than two of them keep the score's order.
    expect(top('check repair reiserfs partition', withCheckers(10))[0]).toBe('check');
  });
  it('treats, in a sentence, a kind noun right after a counted word as a filler word (`a cab file`)', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('cabextract', { name: 'cabextract', description: 'extract cab archives' });
    engine.add('fileopener', { name: 'fileopener', description: 'open any file' });
    for (let i = 0; i < 12; i++) engine.add(`other${i}`, { name: `other${i}`, description: `open something ${i}` });
    // `file` after `cab` says what `cab` says: `cab` and `open` are the words counted, `cab` the topic.
    expect(top('open a cab file', engine)[0]).toBe('cabextract');
    expect(top('open a cab files', engine)[0]).toBe('cabextract');
    // After a stop word, or in keywords, `file` counts: `fileopener` matches two words.
    expect(top('open a file in a cab', engine)[0]).toBe('fileopener');
    expect(top('open cab file', engine)[0]).toBe('fileopener');
  });
  it('treats the other kind nouns alike: a game, image, document, video, page, song or message after a counted word', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    const kinds = ['game', 'image', 'document', 'video', 'page', 'song', 'message'];
    engine.add('daatool', { name: 'daatool', description: 'read daa archives' });
    for (const kind of kinds) engine.add(`${kind}opener`, { name: `${kind}opener`, description: `open any ${kind}` });
    for (let i = 0; i < 12; i++) engine.add(`other${i}`, { name: `other${i}`, description: `open something ${i}` });
    // The kind noun after `daa` is no word of its own: `daa`, the topic, decides against `open` + the kind noun.
    for (const kind of kinds) {
      expect(top(`open a daa ${kind}`, engine)[0]).toBe('daatool');
      expect(top(`open a daa ${kind}s`, engine)[0]).toBe('daatool');
      expect(top(`open a ${kind} in a daa`, engine)[0]).toBe(`${kind}opener`);
    }
  });
  it('breaks a tie of every criterion and the score by the shorter text of the fields weighted above the default', () => {
    const engine = new SearchIndex({ fields: [...fields, field('maintainer', 'string', { weight: 1 })], sorts: [] });
    // The same name match in names of the same length; ids alone would put `alpha-x` first.
    engine.add('alpha-x', { name: 'alpha-x', description: 'a long description of many words here', maintainer: 'Ann' });
    engine.add('alpha-y', { name: 'alpha-y', description: 'short one', maintainer: 'a maintainer of a very long name indeed' });
    expect(top('alpha', engine)).toEqual(['alpha-y', 'alpha-x']);
  });
  it('ranks the head of a name family above a name without one, and that above parts and longer names', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    // Equal descriptions: without the prior, ids would decide (ampx-lib-dev, mplay, vlc).
    for (const [name, description] of [
      ['vlc', 'media player'],
      ['vlc-data', 'data files for vlc'],
      ['mplay', 'media player'],
      ['ampx-lib-dev', 'media player'],
      ['ampx-lib-doc', 'documentation'],
    ])
      engine.add(name, { name, description });
    expect(top('media player', engine)).toEqual(['vlc', 'mplay', 'ampx-lib-dev']);
  });
  it('ranks a document filed under more categories above one filed under fewer, up to ten', () => {
    const tagged = [...fields, field('tags', 'categories', { searchMode: 'off', facet: true })];
    const engine = new SearchIndex({ fields: tagged, sorts: [] });
    const tags = (count: number) => Array.from({ length: count }, (_, i) => `role/t${i}`);
    // Equal names' lengths and descriptions: without the rule, ids would decide (alpha, bravo, ...).
    engine.add('alpha', { name: 'alpha', description: 'media player' });
    engine.add('bravo', { name: 'bravo', description: 'media player', tags: tags(2) });
    engine.add('delta', { name: 'delta', description: 'media player', tags: tags(14) });
    engine.add('gamma', { name: 'gamma', description: 'media player', tags: tags(10) });
    engine.add('kilo', { name: 'kilo', description: 'media player', tags: tags(5) });
    // Ten categories and fourteen count alike: ids decide between them.
    expect(top('media player', engine)).toEqual(['delta', 'gamma', 'kilo', 'bravo', 'alpha']);
  });
  it('ranks a family member filed under five categories or more, its text naming no helper, as an application', () => {
    const tagged = [...fields, field('tags', 'categories', { searchMode: 'off', facet: true })];
    const engine = new SearchIndex({ fields: tagged, sorts: [] });
    // Flat values: a path (`role/t0`) counts its parent too.
    const tags = (count: number) => Array.from({ length: count }, (_, i) => `t${i}`);
    // `srvx-imapd` and `srva-imapd` are parts by their siblings' names; `zeta-popd` heads no family and is filed under
    // fewer categories. Equal lengths: without the rule, `zeta-popd` would come first and ids decide between the parts.
    engine.add('srvx-core', { name: 'srvx-core', description: 'core files' });
    engine.add('srva-core', { name: 'srva-core', description: 'core files' });
    engine.add('srvx-imapd', { name: 'srvx-imapd', description: 'mail daemon server', tags: tags(6) });
    engine.add('srva-imapd', { name: 'srva-imapd', description: 'mail daemon plugin', tags: tags(6) });
    engine.add('zeta-popd', { name: 'zeta-popd', description: 'mail daemon server', tags: tags(5) });
    expect(top('mail daemon', engine)).toEqual(['srvx-imapd', 'zeta-popd', 'srva-imapd']);
    // Four categories are not yet an application's.
    const fewer = new SearchIndex({ fields: tagged, sorts: [] });
    fewer.add('srvx-core', { name: 'srvx-core', description: 'core files' });
    fewer.add('srvx-imapd', { name: 'srvx-imapd', description: 'mail daemon server', tags: tags(4) });
    fewer.add('zeta-popd', { name: 'zeta-popd', description: 'mail daemon server', tags: tags(4) });
    expect(top('mail daemon', fewer)).toEqual(['zeta-popd', 'srvx-imapd']);
  });
  it('ranks an application whose name holds every query word above a description holding them, its namespace no part', () => {
    const tagged = [...fields, field('tags', 'categories', { searchMode: 'off', facet: true })];
    const engine = new SearchIndex({ fields: tagged, sorts: [] });
    const tags = (count: number) => Array.from({ length: count }, (_, i) => `t${i}`);
    // `gnome-…` begins more than 50 names (a namespace); fillers keep `gno…` from being a glued one.
    for (let i = 0; i < 51; i++) engine.add(`gnome-m${i}`, { name: `gnome-m${i}`, description: 'a module' });
    for (let i = 0; i < 250; i++) engine.add(`other${i}`, { name: `other${i}`, description: 'something else' });
    engine.add('gnome-sound-recorder', { name: 'gnome-sound-recorder', description: 'simple tool for the desktop', tags: tags(6) });
    engine.add('rec', { name: 'rec', description: 'sound recorder and effect processor' });
    // Filed alike, but a library by its description: the words in its name make it no application.
    engine.add('gnome-voice-sound-recorder', {
      name: 'gnome-voice-sound-recorder',
      description: 'library for the desktop',
      tags: tags(6),
    });
    // Without the rule, `gnome-sound-recorder` is a part of the namespace (×0.5), below `rec`'s description.
    expect(top('sound recorder', engine)).toEqual(['gnome-sound-recorder', 'rec', 'gnome-voice-sound-recorder']);
  });
  it('ranks a name of four words or more sharing all but its last two with more than five names as a part', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    // Equal descriptions and lengths: without the rule, ids would put the variants first.
    for (const feature of ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta'])
      engine.add(`aaa-dns-server+${feature}-dev`, { name: `aaa-dns-server+${feature}-dev`, description: 'domain resolver' });
    engine.add('other-name-of-five-words', { name: 'other-name-of-five-words', description: 'domain resolver' });
    expect(top('domain resolver', engine)[0]).toBe('other-name-of-five-words');
    // Five such names are not yet variants.
    const fewer = new SearchIndex({ fields, sorts: [] });
    for (const feature of ['alpha', 'beta', 'gamma', 'delta', 'eps'])
      fewer.add(`aaa-dns-server+${feature}-dev`, { name: `aaa-dns-server+${feature}-dev`, description: 'domain resolver' });
    fewer.add('other-name-of-five-words', { name: 'other-name-of-five-words', description: 'domain resolver' });
    expect(top('domain resolver', fewer)[0]).toBe('aaa-dns-server+alpha-dev');
  });
  it('ranks names beginning like more than five others, none of them named so, as parts', () => {
    // Equal descriptions and lengths, each name's first two words its own: without the rule, ids would put
    // `ampx-aa-kit` first.
    const family = new SearchIndex({ fields, sorts: [] });
    for (const part of ['aa', 'bb', 'cc', 'dd', 'ee', 'ff'])
      family.add(`ampx-${part}-kit`, { name: `ampx-${part}-kit`, description: 'media player' });
    family.add('solo-app-kit', { name: 'solo-app-kit', description: 'media player' });
    expect(top('media player', family)[0]).toBe('solo-app-kit');
    // Five such names are not yet a family.
    const fewer = new SearchIndex({ fields, sorts: [] });
    for (const part of ['aa', 'bb', 'cc', 'dd', 'ee'])
      fewer.add(`ampx-${part}-kit`, { name: `ampx-${part}-kit`, description: 'media player' });
    fewer.add('solo-app-kit', { name: 'solo-app-kit', description: 'media player' });
    expect(top('media player', fewer)[0]).toBe('ampx-aa-kit');
  });
  it('ranks a name whose last word ends more than 600 names as a part', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('big-screen-app', { name: 'big-screen-app', description: 'video player' });
    engine.add('libvid-dev', { name: 'libvid-dev', description: 'video player' });
    // `dev` ends 602 names: a namespace of endings, like `python3-` of beginnings.
    for (let i = 0; i < 600; i++) engine.add(`filler${i}-dev`, { name: `filler${i}-dev`, description: 'development files' });
    expect(top('video player', engine)).toEqual(['big-screen-app', 'libvid-dev']);
  });
  it('ranks a name whose first word goes on past a three-letter beginning of more than a fifth of all names as a part', () => {
    // Equal one-word names and descriptions: without the rule, ids would put `libzbar0` first.
    const glued = new SearchIndex({ fields, sorts: [] });
    for (const [name, description] of [
      ['libzbar0', 'qr code scanner'],
      ['zbarscan', 'qr code scanner'],
      ['other', 'something else'],
    ])
      glued.add(name, { name, description });
    // 51 of 53 names start with `lib`: more than 50 and more than a fifth.
    for (let i = 0; i < 50; i++) glued.add(`libfiller${i}`, { name: `libfiller${i}`, description: 'development files' });
    expect(top('qr code scanner', glued)).toEqual(['zbarscan', 'libzbar0']);
    // 51 of 260 names are not more than a fifth.
    const fewer = new SearchIndex({ fields, sorts: [] });
    for (const name of ['libzbar0', 'zbarscan']) fewer.add(name, { name, description: 'qr code scanner' });
    for (let i = 0; i < 50; i++) fewer.add(`libfiller${i}`, { name: `libfiller${i}`, description: 'development files' });
    for (let i = 0; i < 208; i++) fewer.add(`other${i}`, { name: `other${i}`, description: 'something else' });
    expect(top('qr code scanner', fewer)).toEqual(['libzbar0', 'zbarscan']);
  });
  it('keeps the family prior through a few changes, new documents ranking without one', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    for (const name of ['vlc', 'vlc-data', 'mplay']) engine.add(name, { name, description: 'media player' });
    expect(top('media player', engine)).toEqual(['vlc', 'mplay', 'vlc-data']);
    // `aplay` arrives after the prior was taken: it ranks as a name without a family, before the part `vlc-data`.
    engine.add('aplay', { name: 'aplay', description: 'media player' });
    expect(top('media player', engine)).toEqual(['vlc', 'aplay', 'mplay', 'vlc-data']);
  });
  it('weighs a completion of an indexed word no more than the word as typed', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    // `java` is common, `javacc` rare: uncapped, the rare completion's weight put `parser` first.
    for (let i = 0; i < 20; i++) engine.add(`lib${i}`, { name: `lib${i}`, description: 'library for java' });
    engine.add('jdk', { name: 'jdk', description: 'java java development kit' });
    engine.add('parser', { name: 'parser', description: 'java javacc grammar' });
    expect(top('java', engine)[0]).toBe('jdk');
    // A word indexed nowhere as typed is being typed: its completions weigh as before.
    expect(top('javac', engine)).toEqual(['parser']);
  });
  it('takes a completion or a shorter form of a one-word query indexed as typed for another word, not a name being typed', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('wikitrans', { name: 'wikitrans', description: 'markup translator' });
    engine.add('dokuwiki', { name: 'dokuwiki', description: 'simple wiki' });
    engine.add('ikiwiki', { name: 'ikiwiki', description: 'wiki compiler' });
    engine.add('gitit', { name: 'gitit', description: 'wiki backed by git' });
    engine.add('moin', { name: 'moin', description: 'wiki engine' });
    // `wiki` is a word (four descriptions hold it): `wikitrans` only completes it, so it does not start with the query.
    expect(top('wiki', engine).at(-1)).toBe('wikitrans');
    // `wik` is indexed nowhere: it is being typed, and a name completing it is the name typed.
    expect(top('wik', engine)[0]).toBe('wikitrans');
    // A shorter form of the word is no name being typed either: the query went past it.
    engine.add('check', { name: 'check', description: 'unit testing framework' });
    engine.add('kcheckers', { name: 'kcheckers', description: 'checkers board game' });
    expect(top('checkers', engine)[0]).toBe('kcheckers');
    // A longer form still starts the query as typed (`blend` -> `blender`).
    engine.add('blender', { name: 'blender', description: '3d modeller' });
    engine.add('mixer', { name: 'mixer', description: 'blend colours' });
    expect(top('blend', engine)[0]).toBe('blender');
  });
  it('gives a name one typo from the query no exactness when the word is typo-free only through a completion elsewhere', () => {
    const withMaintainer = [...fields, field('maintainer', 'string', { weight: 1 })];
    const engine = new SearchIndex({ fields: withMaintainer, sorts: [] });
    engine.add('ava', { name: 'ava', description: 'futuristic test runner', maintainer: 'Javascript Maintainers' });
    engine.add('ant', { name: 'ant', description: 'build tool for java' });
    engine.add('jdk', { name: 'jdk', description: 'development kit for java programs' });
    engine.add('galculator', { name: 'galculator', description: 'scientific calculator' });
    engine.add('xcalc', { name: 'xcalc', description: 'calculator for X' });
    // `ava` is one typo from `java` and without a typo only through `javascript`, another word: no name typed.
    expect(top('java', engine).at(-1)).toBe('ava');
    // A name one typo from the query keeps its exactness where the document holds the word as typed.
    expect(top('calculator', engine)[0]).toBe('galculator');
  });
  it('takes a one-word query in at most three documents as a name being typed', () => {
    const engine = new SearchIndex({ fields, sorts: [] });
    engine.add('driftnet', { name: 'driftnet', description: 'picks out images from network traffic' });
    engine.add('secs3d', { name: 'secs3d', description: 'drift diffusion simulator' });
    // `drift` is a word of one description: too rare to be what is meant rather than the name it begins.
    expect(top('drift', engine)[0]).toBe('driftnet');
  });
  it("scores a word's singular or plural once, below the word as typed (`sketch` over `sketches`), at x0.8", () => {
    const engine = (literal: string) => {
      const built = new SearchIndex({ fields, sorts: [] });
      built.add('one', { name: 'one', description: literal });
      built.add('two', { name: 'two', description: 'sketches alpha' });
      built.add('three', { name: 'three', description: 'other words here only' });
      return built;
    };
    // `sketches` is the plural interpretation's and also a completion of `sketch`: counted by both, it came first.
    expect(top('sketch', engine('sketch alpha'))).toEqual(['one', 'two']);
    expect(top('sketches', engine('sketch alpha'))).toEqual(['two', 'one']);
    // The plural weighs x0.8 of the word as typed (x0.9 put it first here): it comes first only from a much shorter field.
    expect(top('sketch', engine('sketch alpha bravo charlie'))).toEqual(['one', 'two']);
    expect(top('sketch', engine('sketch alpha bravo charlie delta echo foxtrot'))).toEqual(['two', 'one']);
    // Nor does a typo count what the plural interpretation scores: `sketch` is one typo from `sketches` in a fuzzy name.
    const names = new SearchIndex({ fields, sorts: [] });
    names.add('my-sketch', { name: 'my-sketch', description: 'drawing board' });
    names.add('my-sketches', { name: 'my-sketches', description: 'drawing board' });
    names.add('other', { name: 'other', description: 'some words' });
    expect(top('sketches', names)).toEqual(['my-sketches', 'my-sketch']);
    expect(top('sketch', names)).toEqual(['my-sketch', 'my-sketches']);
  });
  it("takes an app's own stop words instead of the English list", () => {
    const own = index({ stopWords: ['program'] });
    expect(top('the gimp', own)[0]).toBe('gimp');
    expect(top('guide program', own)).toEqual(['television-guide']);
  });
});
