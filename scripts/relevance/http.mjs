// Ours through the HTTP search API of a running service (`npm run dev`), instead of the engine in process.
import { searchQueryString } from '../bench/api.mjs';

export function httpEngine({ url, tenant, app }) {
  const base = `${url.replace(/\/$/, '')}/api/v1/search/${encodeURIComponent(tenant)}/${encodeURIComponent(app)}`;
  return {
    name: 'ours (HTTP)',
    ranked: async ({ q, rows }) => {
      const res = await fetch(`${base}?${searchQueryString({ q, rows })}`);
      const text = await res.text();
      if (!res.ok) throw new Error(`GET ${base} answered ${res.status}: ${text.slice(0, 500)}`);
      return JSON.parse(text).result.documents.map((document) => document.id);
    },
  };
}
