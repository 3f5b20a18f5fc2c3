// The embedding model of the stand-ins (Node): every word of a concept below lands on that concept's axis,
// so texts about the same thing in different words ("car", "automobile") get close vectors; any other word
// lands, with a smaller weight, on an axis picked by its hash. Vectors are L2-normalized.

/** Concepts the tests rely on: words in one list are synonyms to the stand-in model. */
export const CONCEPTS: string[][] = [
  ['car', 'cars', 'automobile', 'automobiles', 'vehicle', 'vehicles', 'driving', 'motor'],
  ['share', 'sharing', 'shares', 'samba', 'smb', 'cifs', 'windows', 'fileserver', 'file', 'files'],
  ['music', 'audio', 'sound', 'song', 'songs', 'mp3', 'player', 'listen'],
  ['game', 'games', 'gaming', 'play', 'strategy', 'arcade', 'puzzle'],
  ['editor', 'edit', 'editing', 'text', 'vim', 'emacs', 'write', 'writing'],
  ['picture', 'pictures', 'photo', 'photos', 'image', 'images', 'graphics', 'drawing'],
  ['compress', 'compression', 'archive', 'archiver', 'zip', 'unzip', 'gzip', 'shrink'],
  ['mail', 'email', 'e-mail', 'inbox', 'smtp', 'imap', 'letters'],
  ['web', 'browser', 'internet', 'http', 'website', 'surf'],
  ['dog', 'dogs', 'puppy', 'puppies', 'canine', 'hound'],
];

const CONCEPT_OF = new Map<string, number>(CONCEPTS.flatMap((words, axis) => words.map((word) => [word, axis] as [string, number])));
const OTHER_WORD_WEIGHT = 0.3;

function hashOf(word: string): number {
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function conceptVector(text: string, dimensions = 384): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[a-z0-9-]+/g) ?? [];
  for (const word of words) {
    const concept = CONCEPT_OF.get(word);
    if (concept !== undefined) vector[concept % dimensions] += 1;
    else vector[CONCEPTS.length + (hashOf(word) % (dimensions - CONCEPTS.length))] += OTHER_WORD_WEIGHT;
  }
  if (!words.length) vector[dimensions - 1] = 1;
  const norm = Math.hypot(...vector);
  return vector.map((x) => x / norm);
}
