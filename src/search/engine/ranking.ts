/** BM25 term weight and ordered selection of the best k documents. */

const K1 = 1.2;
const B = 0.75;

export function inverseDocumentFrequency(documentCount: number, termDocuments: number): number {
  return Math.log(1 + (documentCount - termDocuments + 0.5) / (termDocuments + 0.5));
}

export function bm25(tf: number, fieldLength: number, averageLength: number): number {
  return (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * fieldLength) / (averageLength || 1)));
}

/** The first k items of `items` in `compare` order (stable for equal keys only through `compare`). */
export function selectTop(items: number[], k: number, compare: (a: number, b: number) => number): number[] {
  if (k <= 0) return [];
  if (items.length <= 1024 || k * 4 >= items.length) return items.sort(compare).slice(0, k);
  // Max-heap of the k best: its root is the worst of them.
  const heap: number[] = [];
  const worse = (a: number, b: number) => compare(a, b) > 0;
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l], heap[m])) m = l;
      if (r < heap.length && worse(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (const item of items) {
    if (heap.length < k) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!worse(heap[i], heap[parent])) break;
        [heap[i], heap[parent]] = [heap[parent], heap[i]];
        i = parent;
      }
    } else if (compare(item, heap[0]) < 0) {
      heap[0] = item;
      siftDown(0);
    }
  }
  return heap.sort(compare);
}
