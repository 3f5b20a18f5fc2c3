import { describe, expect, it } from 'vitest';
import { highlight, QueryWords, snippet, type MatchRules } from '../src/search/engine/highlight';
import { planIndex } from '../src/search/engine/plan';

const fuzzy: MatchRules = { prefix: true, typos: true };
const balanced: MatchRules = { prefix: true, typos: false };
const exactOnly: MatchRules = { prefix: false, typos: false };

describe('highlight', () => {
  it('marks exact words case- and accent-insensitively, keeping the original text', () => {
    expect(highlight('Vim: Vi IMproved, the vim editor', new QueryWords('vim'), fuzzy)).toBe(
      '<mark>Vim</mark>: Vi IMproved, the <mark>vim</mark> editor',
    );
    expect(highlight('Éditeur de texte', new QueryWords('editeur'), exactOnly)).toBe('<mark>Éditeur</mark> de texte');
  });

  it('marks the typed part of a prefix of the last query word only', () => {
    expect(highlight('text editor for editing', new QueryWords('text edi'), balanced)).toBe(
      '<mark>text</mark> <mark>edi</mark>tor for <mark>edi</mark>ting',
    );
    // `tex` is not the last word: no prefix match.
    expect(highlight('text editor', new QueryWords('tex editor'), balanced)).toBe('text <mark>editor</mark>');
    expect(highlight('text editor', new QueryWords('edi'), exactOnly)).toBe('text editor');
  });

  it('marks typo matches within the engine thresholds, transpositions included, only where typos are allowed', () => {
    expect(highlight('a web browser', new QueryWords('browsre'), fuzzy)).toBe('a web <mark>browser</mark>');
    expect(highlight('the firefox browser', new QueryWords('firefxo'), fuzzy)).toBe('the <mark>firefox</mark> browser');
    expect(highlight('a web browser', new QueryWords('browsre'), balanced)).toBe('a web browser');
    // Three-letter words allow no typo; four to seven letters one; eight and more two.
    expect(highlight('vim and vum', new QueryWords('vix'), fuzzy)).toBe('vim and vum');
    expect(highlight('kernel', new QueryWords('kernal'), fuzzy)).toBe('<mark>kernel</mark>');
    expect(highlight('kernel', new QueryWords('kirnal'), fuzzy)).toBe('kernel');
    expect(highlight('developer', new QueryWords('devloper2'), fuzzy)).toBe('<mark>developer</mark>');
  });

  it('marks words of any first letter or length that a query word reaches (words no query word can reach are skipped unread)', () => {
    // A typo in the first letter; a word one letter longer and shorter.
    expect(highlight('a web browser', new QueryWords('vrowser'), fuzzy)).toBe('a web <mark>browser</mark>');
    const typosOnly: MatchRules = { prefix: false, typos: true };
    expect(highlight('kernels and kerne', new QueryWords('kernel'), typosOnly)).toBe('<mark>kernels</mark> and <mark>kerne</mark>');
    // Words of 31 letters and more share one length: spelled out, completed and with typos.
    const long = 'abcdefghijklmnopqrstuvwxyzabcdefghij';
    expect(highlight(`the ${long} one`, new QueryWords(long), exactOnly)).toBe(`the <mark>${long}</mark> one`);
    expect(highlight(`the ${long} one`, new QueryWords(long.slice(0, 33)), balanced)).toBe(
      `the <mark>${long.slice(0, 33)}</mark>${long.slice(33)} one`,
    );
    expect(highlight(`the ${long}zz one`, new QueryWords(long), typosOnly)).toBe(`the <mark>${long}zz</mark> one`);
    // Other forms of a word (not the last, which completes), found by stem, begin with its first letter.
    expect(highlight('a recorder for recording', new QueryWords('record tool'), balanced)).toBe(
      'a <mark>recorder</mark> for <mark>recording</mark>',
    );
  });

  it('escapes HTML around and inside marks and takes custom tags', () => {
    const tags = { pre: '<em class="hit">', post: '</em>' };
    expect(highlight('<b>vim</b> & "emacs"', new QueryWords('vim emacs'), fuzzy, tags)).toBe(
      '&lt;b&gt;<em class="hit">vim</em>&lt;/b&gt; &amp; &quot;<em class="hit">emacs</em>&quot;',
    );
    expect(highlight('<script>', new QueryWords(''), fuzzy)).toBe('&lt;script&gt;');
  });

  it('escapes a text it marks nothing in, and returns a plain one as it is', () => {
    const query = new QueryWords('nomatch');
    expect(highlight(`Tom's <b>bold</b> & "quoted"`, query, fuzzy)).toBe('Tom&#39;s &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;');
    expect(highlight('a>', query, balanced)).toBe('a&gt;');
    expect(highlight('Café <x>', query, exactOnly)).toBe('Café &lt;x&gt;');
    expect(highlight('plain words, nothing to escape', query, fuzzy)).toBe('plain words, nothing to escape');
    expect(highlight('nomatch <i>', query, fuzzy)).toBe('<mark>nomatch</mark> &lt;i&gt;');
  });

  it("marks the words of the app's synonyms of a query word, as the engine finds them", () => {
    const synonyms = planIndex({
      fields: [],
      sorts: [],
      ranking: {
        stopWords: [],
        synonyms: [
          { input: 'tv', synonyms: ['television', 'flat screen'] },
          { input: 'phone', synonyms: ['smartphone'] },
        ],
      },
    }).ranking;
    expect(highlight('Television stand for a flat screen TV', new QueryWords('tv stand', synonyms), exactOnly)).toBe(
      '<mark>Television</mark> <mark>stand</mark> for a <mark>flat</mark> <mark>screen</mark> <mark>TV</mark>',
    );
    // One-way: the input word finds its synonym, not the reverse; and only when the query has the input word.
    expect(highlight('Smartphone and phone', new QueryWords('phone', synonyms), exactOnly)).toBe(
      '<mark>Smartphone</mark> and <mark>phone</mark>',
    );
    expect(highlight('Smartphone and phone', new QueryWords('smartphone', synonyms), exactOnly)).toBe('<mark>Smartphone</mark> and phone');
    expect(highlight('a television', new QueryWords('stand', synonyms), exactOnly)).toBe('a television');
    // A synonym's word counts for the query word it stands for: the snippet window centres on it.
    expect(snippet('one two three four five six television seven eight', new QueryWords('tv', synonyms), exactOnly, 3)).toBe(
      '…six <mark>television</mark> seven…',
    );
  });

  it('marks the singular or plural of a query word in every field, its other forms where the engine finds them', () => {
    expect(highlight('music player and players', new QueryWords('players'), exactOnly)).toBe(
      'music <mark>player</mark> and <mark>players</mark>',
    );
    expect(highlight('libraries for images', new QueryWords('library image'), exactOnly)).toBe(
      '<mark>libraries</mark> for <mark>images</mark>',
    );
    // Same stem: a verb finds its -er, -ing and -ment forms, in fields that take more than exact words.
    expect(highlight('screen recorder for recording', new QueryWords('record screen'), balanced)).toBe(
      '<mark>screen</mark> <mark>recorder</mark> for <mark>recording</mark>',
    );
    expect(highlight('screen recorder', new QueryWords('record screen'), exactOnly)).toBe('<mark>screen</mark> recorder');
    expect(highlight('a modeller and a modem', new QueryWords('modeling tool'), balanced)).toBe('a <mark>modeller</mark> and a modem');
  });

  it('marks a word that query words glue into, and words in a row that a query word glues', () => {
    expect(highlight('Wireshark, a network analyzer', new QueryWords('wire shark'), fuzzy)).toBe(
      '<mark>Wireshark</mark>, a network analyzer',
    );
    expect(highlight('an e-book manager', new QueryWords('ebook'), exactOnly)).toBe('an <mark>e</mark>-<mark>book</mark> manager');
    expect(highlight('speedtest-cli', new QueryWords('speedtestcli'), fuzzy)).toBe('<mark>speedtest</mark>-<mark>cli</mark>');
    expect(highlight('a book of e', new QueryWords('ebook'), exactOnly)).toBe('a book of e');
    // After a matched word, and in a text of other letters than ASCII ones.
    expect(highlight('ebook or e-book', new QueryWords('ebook'), exactOnly)).toBe('<mark>ebook</mark> or <mark>e</mark>-<mark>book</mark>');
    expect(highlight('Lecteur d’e-book', new QueryWords('ebook'), exactOnly)).toBe('Lecteur d’<mark>e</mark>-<mark>book</mark>');
    expect(snippet('Lecteur d’e-book', new QueryWords('ebook'), exactOnly, 2)).toBe('…<mark>e</mark>-<mark>book</mark>');
  });

  it('marks a whole word when its normalized form differs in length from the raw one', () => {
    expect(highlight('ﬁle manager', new QueryWords('fi'), balanced)).toBe('<mark>ﬁle</mark> manager');
  });
});

describe('snippet', () => {
  const text =
    'This package provides a collection of tools for the manipulation of images, among them a fast converter ' +
    'from many raster formats to vector graphics, and a viewer for the terminal.';

  it('cuts a window of words around the best match with ellipses', () => {
    expect(snippet(text, new QueryWords('raster vector'), fuzzy, 8)).toBe(
      '…from many <mark>raster</mark> formats to <mark>vector</mark> graphics, and…',
    );
  });

  it('prefers the window with the most different query words', () => {
    expect(snippet(text, new QueryWords('viewer terminal tools'), fuzzy, 6)).toBe(
      '…and a <mark>viewer</mark> for the <mark>terminal</mark>.',
    );
  });

  it('starts at the beginning without a match, and keeps a short text whole', () => {
    expect(snippet(text, new QueryWords('zzzz'), fuzzy, 4)).toBe('This package provides a…');
    expect(snippet(text, new QueryWords(''), fuzzy, 3)).toBe('This package provides…');
    expect(snippet('tiny <text>', new QueryWords('tiny'), fuzzy, 5)).toBe('<mark>tiny</mark> &lt;text&gt;');
  });
});
